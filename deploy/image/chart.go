package main

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"

	"go.yaml.in/yaml/v3"
)

// ChartDir is the Helm chart, relative to the module root. The image is named after the chart's
// default values rather than after the binary's version, so that the chart runs an image built
// here with no value changed: one name, kept in one place.
const ChartDir = "deploy/helm/toolfailure"

// ChartImage is the image the chart runs by default: image.repository of its values.yaml, with
// image.tag, or else the chart's appVersion (what the chart's "toolfailure.image" helper renders).
func ChartImage(moduleDir string) (string, error) {
	var chart struct {
		AppVersion string `yaml:"appVersion"`
	}
	var values struct {
		Image struct {
			Repository string `yaml:"repository"`
			Tag        string `yaml:"tag"`
		} `yaml:"image"`
	}
	if err := readYAML(filepath.Join(moduleDir, ChartDir, "Chart.yaml"), &chart); err != nil {
		return "", err
	}
	if err := readYAML(filepath.Join(moduleDir, ChartDir, "values.yaml"), &values); err != nil {
		return "", err
	}
	tag := values.Image.Tag
	if tag == "" {
		tag = chart.AppVersion
	}
	if values.Image.Repository == "" || tag == "" {
		return "", errors.New("the chart names no default image (image.repository, and appVersion or image.tag)")
	}
	return values.Image.Repository + ":" + tag, nil
}

func readYAML(path string, v any) error {
	b, err := os.ReadFile(path)
	if err != nil {
		return fmt.Errorf("the chart's default image: %w", err)
	}
	if err := yaml.Unmarshal(b, v); err != nil {
		return fmt.Errorf("the chart's default image: %s: %w", path, err)
	}
	return nil
}

// moduleDir is the root of the module that the working directory is in.
func moduleDir() (string, error) {
	gomod, err := exec.Command("go", "env", "GOMOD").Output()
	if err != nil {
		return "", fmt.Errorf("find the module: %w", err)
	}
	if p := strings.TrimSpace(string(gomod)); p != "" && p != os.DevNull {
		return filepath.Dir(p), nil
	}
	return "", errors.New("find the module: run it inside the toolfailure module (go run ./deploy/image)")
}
