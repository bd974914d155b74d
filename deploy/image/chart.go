package main

import (
	"errors"
	"fmt"
	"os"
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

// moduleDir is the root of the toolfailure module: the nearest directory, from the working
// directory up, whose go.mod declares it. The image builder is a module of its own (so that the
// service's module does not carry go-containerregistry), so "go env GOMOD" would name the wrong one.
func moduleDir() (string, error) {
	dir, err := os.Getwd()
	if err != nil {
		return "", fmt.Errorf("find the module: %w", err)
	}
	for {
		b, err := os.ReadFile(filepath.Join(dir, "go.mod"))
		if err == nil && modulePath(b) == module {
			return dir, nil
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return "", errors.New("find the module: run it inside a toolfailure checkout: go run -C deploy/image . -o toolfailure.oci.tar")
		}
		dir = parent
	}
}

// modulePath is the path a go.mod declares, or "" if it declares none.
func modulePath(gomod []byte) string {
	for _, line := range strings.Split(string(gomod), "\n") {
		if rest, ok := strings.CutPrefix(strings.TrimSpace(line), "module "); ok {
			return strings.Trim(strings.TrimSpace(rest), `"`)
		}
	}
	return ""
}
