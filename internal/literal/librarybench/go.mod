module github.com/omcp/toolfailure/internal/literal/librarybench

go 1.26.8

require (
	github.com/BobuSumisu/aho-corasick v1.0.3
	github.com/coregx/ahocorasick v0.3.1
	github.com/omcp/toolfailure v0.0.0
	github.com/petar-dambovaliev/aho-corasick v0.0.0-20250424160509-463d218d4745
)

require (
	buf.build/gen/go/bufbuild/protovalidate/protocolbuffers/go v1.36.12-20260825204119-511051f7f437.1 // indirect
	cel.dev/cel-go v0.33.2 // indirect
	cel.dev/expr v0.25.3 // indirect
	github.com/antlr4-go/antlr/v4 v4.13.1 // indirect
	go.yaml.in/yaml/v3 v3.0.6 // indirect
	golang.org/x/exp v0.0.0-20261109185158-a52e3aef5920 // indirect
	golang.org/x/text v0.44.0 // indirect
	google.golang.org/genproto/googleapis/api v0.0.0-20261110000943-09e21b237f2c // indirect
	google.golang.org/genproto/googleapis/rpc v0.0.0-20261110000943-09e21b237f2c // indirect
	google.golang.org/protobuf v1.36.12 // indirect
)

replace github.com/omcp/toolfailure => ../../..
