// Command image builds the toolfailure container image without Docker and without a registry: an
// OCI image on an empty base, assembled with go-containerregistry (the library ko is built on) from
//
//   - the static binary (CGO_ENABLED=0, built here unless --binary names one),
//   - the CA certificates of the build machine's Debian ca-certificates package
//     (/etc/ssl/certs/ca-certificates.crt), where Go's crypto/x509 looks for them on Linux,
//   - the time zones of its Debian tzdata package (/usr/share/zoneinfo), where Go's time package
//     looks for them, so that the binary itself stays free of an embedded copy,
//   - /etc/passwd and /etc/group naming the non-root user 65532 ("nonroot", as distroless calls
//     it) that the image runs as, its home and the journal directory it owns,
//   - an SPDX 2.3 SBOM of the binary's Go modules (the build information that `go version -m`
//     prints), at /usr/share/doc/toolfailure/sbom.spdx.json.
//
// It writes the image as an OCI image layout in a tar file, which `docker load`, `podman load`,
// `skopeo copy oci-archive:…` and `crane push` accept. The image is named as the Helm chart's
// default values name it (image.repository, tagged with the chart's appVersion), so that the chart
// runs it unchanged once it is in that registry:
//
//	go run -C deploy/image . -o "$PWD/toolfailure.oci.tar"
//
// Every file has the same modification time (SOURCE_DATE_EPOCH, else the commit time of the
// binary's VCS stamp, else the Unix epoch), so the same inputs give the same image digest.
package main

import (
	"flag"
	"fmt"
	"os"
)

func main() {
	var o Options
	flag.StringVar(&o.Output, "o", "toolfailure.oci.tar", "the OCI archive to write")
	flag.StringVar(&o.Binary, "binary", "", "a static linux binary of toolfailure to package; empty builds one with go build")
	flag.StringVar(&o.GOARCH, "arch", "", "architecture to build for when --binary is empty (default: the build machine's)")
	flag.StringVar(&o.CAFile, "ca-file", DefaultCAFile, "the CA bundle to install")
	flag.StringVar(&o.ZoneInfo, "zoneinfo", DefaultZoneInfo, "the time zone database directory to install")
	flag.StringVar(&o.Version, "version", "", "the image's version label (default: the binary's module version)")
	flag.StringVar(&o.Ref, "ref", "", "the image's name and tag in the archive (default: the chart's default image, "+ChartDir+": image.repository:appVersion)")
	flag.Parse()
	if flag.NArg() > 0 {
		fmt.Fprintln(os.Stderr, "image: no arguments expected; see -h")
		os.Exit(2)
	}
	res, err := Build(o)
	if err != nil {
		fmt.Fprintln(os.Stderr, "image:", err)
		os.Exit(1)
	}
	fmt.Printf("wrote %s: image %s, %d layers\n", o.Output, res.Digest, res.Layers)
}
