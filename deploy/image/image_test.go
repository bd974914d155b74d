package main

import (
	"archive/tar"
	"cmp"
	"debug/elf"
	"encoding/json"
	"errors"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"testing"
	"time"

	v1 "github.com/google/go-containerregistry/pkg/v1"
	"github.com/google/go-containerregistry/pkg/v1/layout"
	"github.com/google/go-containerregistry/pkg/v1/types"
	"go.yaml.in/yaml/v3"
)

// TestImage builds the image as CI does, writes the OCI archive, then reads it back the way a
// runtime would: the layout's index, the manifest and config, and every layer's files. It checks
// the entrypoint, the non-root user, the labels, the layers, that the binary is static and runs,
// that CA certificates and time zones are where Go looks, and that the SBOM lists the modules.
func TestImage(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the binary")
	}
	t.Parallel()
	out := filepath.Join(t.TempDir(), "toolfailure.oci.tar")
	date := time.Unix(1764460000, 0)
	res, err := Build(Options{Output: out, GOARCH: runtime.GOARCH, SourceDate: date})
	if err != nil {
		t.Fatal(err)
	}

	dir := t.TempDir()
	untar(t, out, dir)
	if b, err := os.ReadFile(filepath.Join(dir, "oci-layout")); err != nil || !strings.Contains(string(b), `"imageLayoutVersion"`) {
		t.Fatalf("oci-layout: %q %v", b, err)
	}
	idx, err := layout.ImageIndexFromPath(dir)
	if err != nil {
		t.Fatal(err)
	}
	im, err := idx.IndexManifest()
	if err != nil {
		t.Fatal(err)
	}
	if len(im.Manifests) != 1 {
		t.Fatalf("index has %d manifests, want 1", len(im.Manifests))
	}
	desc := im.Manifests[0]
	if desc.Digest != res.Digest || desc.MediaType != types.OCIManifestSchema1 {
		t.Errorf("index entry %s %s, want %s %s", desc.Digest, desc.MediaType, res.Digest, types.OCIManifestSchema1)
	}
	// Loaded into docker, podman or containerd, the image has the name the chart runs by default.
	want := chartDefaultImage(t)
	for _, a := range []string{"org.opencontainers.image.ref.name", "io.containerd.image.name"} {
		if got := desc.Annotations[a]; got != want {
			t.Errorf("annotation %s = %q, want the chart's default image %q", a, got, want)
		}
	}
	if desc.Platform == nil || desc.Platform.OS != "linux" || desc.Platform.Architecture != runtime.GOARCH {
		t.Errorf("platform %+v", desc.Platform)
	}
	img, err := idx.Image(desc.Digest)
	if err != nil {
		t.Fatal(err)
	}
	cf, err := img.ConfigFile()
	if err != nil {
		t.Fatal(err)
	}
	c := cf.Config
	if !slices.Equal(c.Entrypoint, []string{BinaryPath}) {
		t.Errorf("entrypoint %v", c.Entrypoint)
	}
	if len(c.Cmd) == 0 || c.Cmd[0] != "serve" || !slices.Contains(c.Cmd, "0.0.0.0:8080") {
		t.Errorf("cmd %v: want serve on every interface", c.Cmd)
	}
	if c.User != "65532:65532" {
		t.Errorf("user %q, want 65532:65532 (non-root)", c.User)
	}
	if _, ok := c.Volumes[JournalDir]; !ok {
		t.Errorf("volumes %v: no journal volume", c.Volumes)
	}
	for _, l := range []string{"org.opencontainers.image.title", "org.opencontainers.image.source", "org.opencontainers.image.version", "org.opencontainers.image.created"} {
		if c.Labels[l] == "" {
			t.Errorf("label %s missing: %v", l, c.Labels)
		}
	}
	if got := c.Labels["org.opencontainers.image.created"]; got != "2025-11-29T23:46:40Z" {
		t.Errorf("created label %q does not follow the source date", got)
	}
	if cf.OS != "linux" || cf.Architecture != runtime.GOARCH {
		t.Errorf("config platform %s/%s", cf.OS, cf.Architecture)
	}

	layers, err := img.Layers()
	if err != nil {
		t.Fatal(err)
	}
	if len(layers) != 3 || len(cf.RootFS.DiffIDs) != 3 {
		t.Fatalf("%d layers (%d diff IDs), want 3: base, binary, SBOM", len(layers), len(cf.RootFS.DiffIDs))
	}
	files := map[string]*tar.Header{}
	contents := map[string][]byte{}
	for _, l := range layers {
		mt, _ := l.MediaType()
		if mt != types.OCILayer {
			t.Errorf("layer media type %s", mt)
		}
		readLayer(t, l, files, contents)
	}
	bin := files[strings.TrimPrefix(BinaryPath, "/")]
	if bin == nil || bin.Mode&0o111 == 0 {
		t.Fatalf("no executable %s in the image", BinaryPath)
	}
	exe := filepath.Join(t.TempDir(), "toolfailure")
	if err := os.WriteFile(exe, contents[strings.TrimPrefix(BinaryPath, "/")], 0o755); err != nil {
		t.Fatal(err)
	}
	ef, err := elf.Open(exe)
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range ef.Progs {
		if p.Type == elf.PT_INTERP {
			t.Error("the binary has a dynamic loader (PT_INTERP); an image on an empty base needs a static one")
		}
	}
	ef.Close()
	if v, err := exec.Command(exe, "--version").CombinedOutput(); err != nil || !strings.Contains(string(v), "toolfailure") {
		t.Errorf("the image's binary --version: %v %s", err, v)
	}
	if !strings.Contains(string(contents["etc/passwd"]), "nonroot:x:65532:65532:") {
		t.Errorf("/etc/passwd has no nonroot user:\n%s", contents["etc/passwd"])
	}
	if h := files[strings.TrimPrefix(JournalDir, "/")]; h == nil || h.Uid != UID {
		t.Errorf("the journal directory is not owned by the non-root user: %+v", h)
	}
	if !strings.Contains(string(contents["etc/ssl/certs/ca-certificates.crt"]), "BEGIN CERTIFICATE") {
		t.Error("no CA certificates at /etc/ssl/certs/ca-certificates.crt")
	}
	for _, zone := range []string{"usr/share/zoneinfo/Europe/Berlin", "usr/share/zoneinfo/America/New_York", "usr/share/zoneinfo/UTC"} {
		if !strings.HasPrefix(string(contents[zone]), "TZif") {
			t.Errorf("no time zone %s", zone)
		}
	}
	for name, h := range files {
		if !h.ModTime.Equal(date) {
			t.Errorf("%s has modification time %s, not the source date", name, h.ModTime)
			break
		}
	}

	var sbom struct {
		SPDXVersion string `json:"spdxVersion"`
		Packages    []struct {
			Name    string `json:"name"`
			Version string `json:"versionInfo"`
			Refs    []struct {
				Locator string `json:"referenceLocator"`
			} `json:"externalRefs"`
		} `json:"packages"`
	}
	if err := json.Unmarshal(contents[strings.TrimPrefix(SBOMPath, "/")], &sbom); err != nil {
		t.Fatalf("SBOM: %v", err)
	}
	if sbom.SPDXVersion != "SPDX-2.3" {
		t.Errorf("SBOM version %q", sbom.SPDXVersion)
	}
	names := map[string]string{}
	for _, p := range sbom.Packages {
		names[p.Name] = p.Version
		if len(p.Refs) == 0 || !strings.HasPrefix(p.Refs[0].Locator, "pkg:golang/") {
			t.Errorf("SBOM package %s has no Go package URL", p.Name)
		}
	}
	for _, want := range []string{"github.com/omcp/toolfailure", "github.com/jackc/pgx/v5", "connectrpc.com/connect/v2", "stdlib"} {
		if names[want] == "" {
			t.Errorf("SBOM lists no %s (has %d packages)", want, len(names))
		}
	}

	// The same inputs give the same image.
	again, err := Build(Options{Output: filepath.Join(t.TempDir(), "again.tar"), Binary: exe, SourceDate: date})
	if err != nil {
		t.Fatal(err)
	}
	if again.Digest != res.Digest {
		t.Errorf("rebuilt from the same binary: %s, first %s", again.Digest, res.Digest)
	}
}

// chartDefaultImage reads the chart's default image as Helm renders it: image.repository, and
// image.tag or else the chart's appVersion.
func chartDefaultImage(t *testing.T) string {
	t.Helper()
	var chart struct {
		AppVersion string `yaml:"appVersion"`
	}
	var values struct {
		Image struct{ Repository, Tag string } `yaml:"image"`
	}
	for file, v := range map[string]any{"Chart.yaml": &chart, "values.yaml": &values} {
		b, err := os.ReadFile(filepath.Join("..", "helm", "toolfailure", file))
		if err != nil {
			t.Fatal(err)
		}
		if err := yaml.Unmarshal(b, v); err != nil {
			t.Fatalf("%s: %v", file, err)
		}
	}
	if values.Image.Repository == "" || chart.AppVersion == "" {
		t.Fatalf("the chart names no default image: repository %q, appVersion %q", values.Image.Repository, chart.AppVersion)
	}
	return values.Image.Repository + ":" + cmp.Or(values.Image.Tag, chart.AppVersion)
}

// The image's default name is the chart's default image, read from the chart itself, so that
// the two cannot drift apart.
func TestImageNameIsTheChartsDefault(t *testing.T) {
	t.Parallel()
	dir, err := moduleDir()
	if err != nil {
		t.Fatal(err)
	}
	got, err := ChartImage(dir)
	if err != nil {
		t.Fatal(err)
	}
	if want := chartDefaultImage(t); got != want {
		t.Errorf("the image builder names the image %q; the chart runs %q", got, want)
	}
	if !strings.HasPrefix(got, "ghcr.io/omcp/toolfailure:") {
		t.Errorf("image %q is not in the project's registry", got)
	}
}

// A binary that is not toolfailure's is refused before anything is written.
func TestImageRefusesForeignBinary(t *testing.T) {
	t.Parallel()
	exe, err := os.Executable() // this test binary: not toolfailure
	if err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(t.TempDir(), "x.tar")
	_, err = Build(Options{Output: out, Binary: exe})
	if err == nil || !strings.Contains(err.Error(), "not github.com/omcp/toolfailure/cmd/toolfailure") {
		t.Fatalf("Build of a foreign binary: %v", err)
	}
	if _, statErr := os.Stat(out); !errors.Is(statErr, os.ErrNotExist) {
		t.Error("an archive was written for a refused binary")
	}
}

func untar(t *testing.T, file, dir string) {
	t.Helper()
	f, err := os.Open(file)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	tr := tar.NewReader(f)
	for {
		h, err := tr.Next()
		if err == io.EOF {
			return
		}
		if err != nil {
			t.Fatal(err)
		}
		p := filepath.Join(dir, filepath.FromSlash(h.Name))
		if h.Typeflag == tar.TypeDir {
			if err := os.MkdirAll(p, 0o755); err != nil {
				t.Fatal(err)
			}
			continue
		}
		b, err := io.ReadAll(tr)
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

func readLayer(t *testing.T, l v1.Layer, files map[string]*tar.Header, contents map[string][]byte) {
	t.Helper()
	rc, err := l.Uncompressed()
	if err != nil {
		t.Fatal(err)
	}
	defer rc.Close()
	tr := tar.NewReader(rc)
	for {
		h, err := tr.Next()
		if err == io.EOF {
			return
		}
		if err != nil {
			t.Fatal(err)
		}
		name := strings.TrimSuffix(h.Name, "/")
		files[name] = h
		if h.Typeflag == tar.TypeReg {
			b, err := io.ReadAll(tr)
			if err != nil {
				t.Fatal(err)
			}
			contents[name] = b
		}
	}
}
