package main

import (
	"archive/tar"
	"bytes"
	"cmp"
	"crypto/sha256"
	"debug/buildinfo"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"sort"
	"strconv"
	"strings"
	"time"

	v1 "github.com/google/go-containerregistry/pkg/v1"
	"github.com/google/go-containerregistry/pkg/v1/empty"
	"github.com/google/go-containerregistry/pkg/v1/layout"
	"github.com/google/go-containerregistry/pkg/v1/mutate"
	"github.com/google/go-containerregistry/pkg/v1/tarball"
	"github.com/google/go-containerregistry/pkg/v1/types"
)

// Where the image's parts come from on a Debian build machine, and where they go in the image:
// the same paths, which are where Go looks on Linux.
const (
	DefaultCAFile   = "/etc/ssl/certs/ca-certificates.crt"
	DefaultZoneInfo = "/usr/share/zoneinfo"
)

// Paths and identity inside the image.
const (
	BinaryPath  = "/usr/bin/toolfailure"
	SBOMPath    = "/usr/share/doc/toolfailure/sbom.spdx.json"
	JournalDir  = "/var/lib/toolfailure/journal"
	HomeDir     = "/home/nonroot"
	UID         = 65532
	ImageSource = "https://github.com/omcp/toolfailure"
	module      = "github.com/omcp/toolfailure"
)

// Options say what Build packages and where it writes the archive.
type Options struct {
	Output   string // the OCI archive (a tar of an OCI image layout)
	Binary   string // a prebuilt static linux binary; empty: go build ./cmd/toolfailure
	GOARCH   string // for the build; empty: runtime.GOARCH
	CAFile   string
	ZoneInfo string
	Version  string // label; empty: the binary's module version
	// SourceDate is the time stamp of every file and of the image; zero: see sourceDate.
	SourceDate time.Time
	// ModuleDir is the module root to build in; empty: found from the working directory.
	ModuleDir string
	// Ref is the image's name and tag in the archive; empty: the chart's default image
	// (ChartImage), so that the chart runs what was built here without a value changed.
	Ref string
}

// Result describes what Build wrote.
type Result struct {
	Digest v1.Hash // the image manifest's digest
	Layers int
}

// Build assembles the image and writes it to o.Output.
func Build(o Options) (Result, error) {
	o.GOARCH = cmp.Or(o.GOARCH, runtime.GOARCH)
	o.CAFile = cmp.Or(o.CAFile, DefaultCAFile)
	o.ZoneInfo = cmp.Or(o.ZoneInfo, DefaultZoneInfo)
	if o.Output == "" {
		return Result{}, errors.New("no output file")
	}
	if o.ModuleDir == "" {
		dir, err := moduleDir()
		if err != nil {
			return Result{}, err
		}
		o.ModuleDir = dir
	}
	ref := o.Ref
	if ref == "" {
		var err error
		if ref, err = ChartImage(o.ModuleDir); err != nil {
			return Result{}, err
		}
	}
	tmp, err := os.MkdirTemp("", "toolfailure-image-")
	if err != nil {
		return Result{}, err
	}
	defer os.RemoveAll(tmp)

	bin := o.Binary
	if bin == "" {
		bin = filepath.Join(tmp, "toolfailure")
		if err := buildBinary(o, bin); err != nil {
			return Result{}, err
		}
	}
	info, err := buildinfo.ReadFile(bin)
	if err != nil {
		return Result{}, fmt.Errorf("read the build information of %s: %w", bin, err)
	}
	if err := checkStatic(info); err != nil {
		return Result{}, fmt.Errorf("%s: %w", bin, err)
	}
	arch := setting(info, "GOARCH")
	mtime := o.SourceDate.UTC()
	if o.SourceDate.IsZero() {
		mtime = sourceDate(info)
	}
	version := cmp.Or(o.Version, info.Main.Version)
	revision := setting(info, "vcs.revision")

	base, err := baseLayer(o, mtime)
	if err != nil {
		return Result{}, err
	}
	binLayer, err := fileLayer(mtime, BinaryPath, 0o755, bin)
	if err != nil {
		return Result{}, err
	}
	sbom, err := SBOM(info, version, mtime)
	if err != nil {
		return Result{}, err
	}
	sbomLayer, err := bytesLayer(mtime, SBOMPath, 0o644, sbom)
	if err != nil {
		return Result{}, err
	}
	// Three layers, ordered from the one that changes least: a new build replaces only the
	// binary's and the SBOM's.
	img, err := mutate.AppendLayers(mutate.MediaType(empty.Image, types.OCIManifestSchema1), base, binLayer, sbomLayer)
	if err != nil {
		return Result{}, err
	}
	img = mutate.ConfigMediaType(img, types.OCIConfigJSON)
	labels := map[string]string{
		"org.opencontainers.image.title":       "toolfailure",
		"org.opencontainers.image.description": "Structured classification and correlation IDs for failed MCP tool calls",
		"org.opencontainers.image.source":      ImageSource,
		"org.opencontainers.image.url":         ImageSource,
		"org.opencontainers.image.version":     version,
		"org.opencontainers.image.created":     mtime.Format(time.RFC3339),
		"org.opencontainers.image.base.name":   "scratch",
		"io.omcp.toolfailure.sbom":             SBOMPath,
	}
	if revision != "" {
		labels["org.opencontainers.image.revision"] = revision
	}
	cf, err := img.ConfigFile()
	if err != nil {
		return Result{}, err
	}
	cf = cf.DeepCopy()
	cf.Architecture, cf.OS = arch, "linux"
	cf.Created = v1.Time{Time: mtime}
	cf.Author = ImageSource
	cf.Config = v1.Config{
		Entrypoint: []string{BinaryPath},
		// serve listens on every interface inside a container; on a laptop its default is
		// loopback only. The journal directory is a volume the chart mounts.
		Cmd:        []string{"serve", "--listen", "0.0.0.0:8080", "--journal-dir", JournalDir},
		User:       fmt.Sprintf("%d:%d", UID, UID),
		WorkingDir: HomeDir,
		Env: []string{
			"PATH=/usr/bin",
			"HOME=" + HomeDir,
			"SSL_CERT_FILE=" + DefaultCAFile,
		},
		ExposedPorts: map[string]struct{}{"8080/tcp": {}, "9090/tcp": {}},
		Volumes:      map[string]struct{}{JournalDir: {}},
		Labels:       labels,
	}
	if img, err = mutate.ConfigFile(img, cf); err != nil {
		return Result{}, err
	}
	digest, err := img.Digest()
	if err != nil {
		return Result{}, err
	}
	dir := filepath.Join(tmp, "layout")
	p, err := layout.Write(dir, empty.Index)
	if err != nil {
		return Result{}, err
	}
	if err := p.AppendImage(img, layout.WithAnnotations(map[string]string{
		"org.opencontainers.image.ref.name": ref, // what skopeo and podman load name it
		"io.containerd.image.name":          ref, // and what containerd and docker load do
	}), layout.WithPlatform(v1.Platform{OS: "linux", Architecture: arch})); err != nil {
		return Result{}, err
	}
	if err := tarDir(dir, o.Output, mtime); err != nil {
		return Result{}, err
	}
	return Result{Digest: digest, Layers: 3}, nil
}

// buildBinary builds the static binary: no cgo (the embedded store is pure Go), no paths of the
// build machine (-trimpath), VCS stamping left on so the SBOM and labels carry the revision.
func buildBinary(o Options, out string) error {
	cmd := exec.Command("go", "build", "-trimpath", "-ldflags=-s -w", "-o", out, "./cmd/toolfailure")
	cmd.Dir = o.ModuleDir
	cmd.Env = append(os.Environ(), "CGO_ENABLED=0", "GOOS=linux", "GOARCH="+o.GOARCH)
	if b, err := cmd.CombinedOutput(); err != nil {
		return fmt.Errorf("go build: %w\n%s", err, b)
	}
	return nil
}

func checkStatic(info *buildinfo.BuildInfo) error {
	if info.Path != module+"/cmd/toolfailure" {
		return fmt.Errorf("is %s, not %s/cmd/toolfailure", info.Path, module)
	}
	if setting(info, "CGO_ENABLED") != "0" {
		return errors.New("built with cgo; an image on an empty base needs CGO_ENABLED=0")
	}
	if setting(info, "GOOS") != "linux" {
		return fmt.Errorf("built for %s, not linux", setting(info, "GOOS"))
	}
	return nil
}

func setting(info *buildinfo.BuildInfo, key string) string {
	for _, s := range info.Settings {
		if s.Key == key {
			return s.Value
		}
	}
	return ""
}

// sourceDate is the one time stamp of the image: SOURCE_DATE_EPOCH (the reproducible-builds
// convention), else the commit time, else the epoch.
func sourceDate(info *buildinfo.BuildInfo) time.Time {
	if v := os.Getenv("SOURCE_DATE_EPOCH"); v != "" {
		if n, err := strconv.ParseInt(v, 10, 64); err == nil {
			return time.Unix(n, 0).UTC()
		}
	}
	if t, err := time.Parse(time.RFC3339, setting(info, "vcs.time")); err == nil {
		return t.UTC()
	}
	return time.Unix(0, 0).UTC()
}

// entry is one file or directory of a layer.
type entry struct {
	name string // absolute path in the image
	mode int64
	dir  bool
	uid  int
	data []byte
}

// baseLayer holds what the binary needs from an operating system: users, CA certificates, time
// zones, and the directories the non-root user writes to.
func baseLayer(o Options, mtime time.Time) (v1.Layer, error) {
	ca, err := os.ReadFile(o.CAFile)
	if err != nil {
		return nil, fmt.Errorf("CA certificates (install Debian's ca-certificates or pass --ca-file): %w", err)
	}
	if !bytes.Contains(ca, []byte("BEGIN CERTIFICATE")) {
		return nil, fmt.Errorf("%s holds no PEM certificates", o.CAFile)
	}
	entries := []entry{
		{name: "/etc/passwd", mode: 0o644, data: fmt.Appendf(nil, "root:x:0:0:root:/root:/sbin/nologin\nnonroot:x:%d:%d:nonroot:%s:/sbin/nologin\n", UID, UID, HomeDir)},
		{name: "/etc/group", mode: 0o644, data: fmt.Appendf(nil, "root:x:0:\nnonroot:x:%d:\n", UID)},
		{name: "/etc/nsswitch.conf", mode: 0o644, data: []byte("hosts: files dns\n")},
		{name: DefaultCAFile, mode: 0o644, data: ca},
		{name: HomeDir, mode: 0o700, dir: true, uid: UID},
		{name: JournalDir, mode: 0o700, dir: true, uid: UID},
		{name: "/tmp", mode: 0o1777, dir: true},
	}
	zones := 0
	err = filepath.WalkDir(o.ZoneInfo, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(o.ZoneInfo, path)
		// Debian's posix/ and right/ trees duplicate every zone; Go reads neither.
		if d.IsDir() && (rel == "posix" || rel == "right") {
			return fs.SkipDir
		}
		name := filepath.ToSlash(filepath.Join(DefaultZoneInfo, rel))
		if d.IsDir() {
			entries = append(entries, entry{name: name, mode: 0o755, dir: true})
			return nil
		}
		fi, err := os.Stat(path) // follows Debian's links between zone names
		if err != nil || !fi.Mode().IsRegular() {
			return nil
		}
		b, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		if !bytes.HasPrefix(b, []byte("TZif")) && !strings.HasSuffix(rel, ".tab") && rel != "tzdata.zi" && rel != "leapseconds" {
			return nil // only zone files and their tables
		}
		entries = append(entries, entry{name: name, mode: 0o644, data: b})
		zones++
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("time zones (install Debian's tzdata or pass --zoneinfo): %w", err)
	}
	if zones == 0 {
		return nil, fmt.Errorf("time zones: no zone files under %s", o.ZoneInfo)
	}
	return layerOf(mtime, entries)
}

func fileLayer(mtime time.Time, name string, mode int64, src string) (v1.Layer, error) {
	b, err := os.ReadFile(src)
	if err != nil {
		return nil, err
	}
	return bytesLayer(mtime, name, mode, b)
}

func bytesLayer(mtime time.Time, name string, mode int64, b []byte) (v1.Layer, error) {
	return layerOf(mtime, []entry{{name: name, mode: mode, data: b}})
}

// layerOf writes entries, and every parent directory they need, as a tar layer in a stable order.
func layerOf(mtime time.Time, entries []entry) (v1.Layer, error) {
	seen := map[string]bool{}
	var all []entry
	for _, e := range entries {
		for d := filepath.Dir(e.name); d != "/"; d = filepath.Dir(d) {
			if !seen[d] {
				seen[d] = true
				all = append(all, entry{name: d, mode: 0o755, dir: true})
			}
		}
	}
	for _, e := range entries {
		if e.dir && seen[e.name] {
			for i := range all { // an explicit directory entry wins over the implied one
				if all[i].name == e.name {
					all[i] = e
				}
			}
			continue
		}
		seen[e.name] = true
		all = append(all, e)
	}
	sort.SliceStable(all, func(i, j int) bool { return all[i].name < all[j].name })
	var buf bytes.Buffer
	tw := tar.NewWriter(&buf)
	for _, e := range all {
		h := &tar.Header{
			Name: strings.TrimPrefix(e.name, "/"), Mode: e.mode, ModTime: mtime,
			Uid: e.uid, Gid: e.uid, Format: tar.FormatPAX,
		}
		if e.dir {
			h.Typeflag, h.Name = tar.TypeDir, h.Name+"/"
		} else {
			h.Typeflag, h.Size = tar.TypeReg, int64(len(e.data))
		}
		if err := tw.WriteHeader(h); err != nil {
			return nil, err
		}
		if _, err := tw.Write(e.data); err != nil {
			return nil, err
		}
	}
	if err := tw.Close(); err != nil {
		return nil, err
	}
	data := buf.Bytes()
	return tarball.LayerFromOpener(func() (io.ReadCloser, error) {
		return io.NopCloser(bytes.NewReader(data)), nil
	}, tarball.WithMediaType(types.OCILayer))
}

// tarDir archives an OCI layout directory with fixed times and owners.
func tarDir(dir, out string, mtime time.Time) error {
	f, err := os.Create(out)
	if err != nil {
		return err
	}
	tw := tar.NewWriter(f)
	err = filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		if err != nil || path == dir {
			return err
		}
		rel, _ := filepath.Rel(dir, path)
		h := &tar.Header{Name: filepath.ToSlash(rel), ModTime: mtime, Mode: 0o644, Format: tar.FormatPAX}
		if d.IsDir() {
			h.Typeflag, h.Name, h.Mode = tar.TypeDir, h.Name+"/", 0o755
			return tw.WriteHeader(h)
		}
		b, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		h.Typeflag, h.Size = tar.TypeReg, int64(len(b))
		if err := tw.WriteHeader(h); err != nil {
			return err
		}
		_, err = tw.Write(b)
		return err
	})
	if err == nil {
		err = tw.Close()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		_ = os.Remove(out)
		return fmt.Errorf("write %s: %w", out, err)
	}
	return nil
}

// SBOM is an SPDX 2.3 JSON document of the binary: the main module and every module linked in,
// with the versions and checksums that the Go toolchain recorded in the binary (what `go version
// -m` prints), as package URLs.
func SBOM(info *buildinfo.BuildInfo, version string, created time.Time) ([]byte, error) {
	type extRef struct {
		Category string `json:"referenceCategory"`
		Type     string `json:"referenceType"`
		Locator  string `json:"referenceLocator"`
	}
	type pkg struct {
		SPDXID           string   `json:"SPDXID"`
		Name             string   `json:"name"`
		Version          string   `json:"versionInfo,omitempty"`
		Download         string   `json:"downloadLocation"`
		FilesAnalyzed    bool     `json:"filesAnalyzed"`
		Comment          string   `json:"comment,omitempty"`
		ExternalRefs     []extRef `json:"externalRefs,omitempty"`
		PrimaryPurpose   string   `json:"primaryPackagePurpose,omitempty"`
		LicenseConcluded string   `json:"licenseConcluded"`
		LicenseDeclared  string   `json:"licenseDeclared"`
		Copyright        string   `json:"copyrightText"`
	}
	type rel struct {
		Element string `json:"spdxElementId"`
		Type    string `json:"relationshipType"`
		Related string `json:"relatedSpdxElement"`
	}
	purl := func(path, v string) extRef {
		return extRef{Category: "PACKAGE-MANAGER", Type: "purl", Locator: "pkg:golang/" + path + "@" + v}
	}
	mainID := "SPDXRef-Package-toolfailure"
	pkgs := []pkg{{
		SPDXID: mainID, Name: info.Main.Path, Version: version, Download: "git+" + ImageSource,
		ExternalRefs: []extRef{purl(info.Main.Path, version)}, PrimaryPurpose: "APPLICATION",
		LicenseConcluded: "NOASSERTION", LicenseDeclared: "NOASSERTION", Copyright: "NOASSERTION",
	}, {
		SPDXID: "SPDXRef-Package-go-stdlib", Name: "stdlib", Version: info.GoVersion, Download: "https://go.dev/dl/",
		ExternalRefs:     []extRef{purl("stdlib", info.GoVersion)},
		LicenseConcluded: "NOASSERTION", LicenseDeclared: "BSD-3-Clause", Copyright: "NOASSERTION",
	}}
	rels := []rel{
		{Element: "SPDXRef-DOCUMENT", Type: "DESCRIBES", Related: mainID},
		{Element: mainID, Type: "DEPENDS_ON", Related: "SPDXRef-Package-go-stdlib"},
	}
	for i, d := range info.Deps {
		if d.Replace != nil {
			d = d.Replace
		}
		id := fmt.Sprintf("SPDXRef-Package-%d", i)
		p := pkg{
			SPDXID: id, Name: d.Path, Version: d.Version, Download: "https://proxy.golang.org/" + d.Path + "/@v/" + d.Version + ".zip",
			ExternalRefs:     []extRef{purl(d.Path, d.Version)},
			LicenseConcluded: "NOASSERTION", LicenseDeclared: "NOASSERTION", Copyright: "NOASSERTION",
		}
		// The h1: sum is a hash over the module's files (go.sum's), not of any one archive, so
		// it is no SPDX checksum; it goes in the comment, where a verifier can compare it.
		if d.Sum != "" {
			p.Comment = "go.sum " + d.Sum
		}
		pkgs = append(pkgs, p)
		rels = append(rels, rel{Element: mainID, Type: "DEPENDS_ON", Related: id})
	}
	ns := sha256.Sum256(fmt.Appendf(nil, "%s@%s %s", info.Main.Path, version, setting(info, "vcs.revision")))
	doc := map[string]any{
		"spdxVersion":       "SPDX-2.3",
		"dataLicense":       "CC0-1.0",
		"SPDXID":            "SPDXRef-DOCUMENT",
		"name":              "toolfailure " + version,
		"documentNamespace": ImageSource + "/sbom/" + hex.EncodeToString(ns[:16]),
		"creationInfo": map[string]any{
			"created":  created.Format(time.RFC3339),
			"creators": []string{"Tool: toolfailure deploy/image (from the Go build information)"},
		},
		"packages":      pkgs,
		"relationships": rels,
	}
	return json.MarshalIndent(doc, "", "  ")
}
