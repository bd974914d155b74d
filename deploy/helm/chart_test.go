// Package helm_test lints and renders the chart in deploy/helm/toolfailure with Helm's own Go
// packages (what `helm lint` and `helm template` run), so CI needs no helm binary, and checks the
// rendered objects by decoding them strictly into the Kubernetes API types: a misspelt field is an
// error, not a silently ignored key.
//
// It is a module of its own so that Helm's and Kubernetes' many modules stay out of the service's
// dependency graph. Run it with: (cd deploy/helm && go test ./...)
package helm_test

import (
	"encoding/json"
	"fmt"
	"maps"
	"os"
	"slices"
	"strings"
	"testing"

	"helm.sh/helm/v3/pkg/chart/loader"
	"helm.sh/helm/v3/pkg/chartutil"
	"helm.sh/helm/v3/pkg/engine"
	"helm.sh/helm/v3/pkg/lint"
	"helm.sh/helm/v3/pkg/lint/support"
	"helm.sh/helm/v3/pkg/strvals"
	appsv1 "k8s.io/api/apps/v1"
	autoscalingv2 "k8s.io/api/autoscaling/v2"
	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	policyv1 "k8s.io/api/policy/v1"
	"sigs.k8s.io/yaml"
)

const chartDir = "toolfailure"

// valueSets are the configurations CI lints and renders.
var valueSets = map[string]string{
	"minimal": `
secrets: {databaseUrl: "postgres://tf:pw@db:5432/tf"}
`,
	"everything": `
secrets:
  databaseUrl: "postgres://tf:pw@db:5432/tf"
  readDatabaseUrl: "postgres://tf:pw@db-replica:5432/tf"
  uiSecret: "0123456789abcdef0123456789abcdef"
  otlpEndpoint: "http://otel-collector:4318"
telemetry: {protocol: grpc}
shutdown: {drainDelaySeconds: 5, graceSeconds: 30}
autoscaling: {enabled: true, minReplicas: 3, maxReplicas: 12}
image: {digest: "sha256:0000000000000000000000000000000000000000000000000000000000000000"}
extraArgs: ["--rate-limit", "200"]
journal: {existingClaim: toolfailure-journal}
`,
	"existing-secret-and-job": `
secrets: {create: false, existingSecret: toolfailure-db}
migration: {job: true}
metrics: {enabled: false}
podDisruptionBudget: {enabled: false}
journal: {enabled: false}
`,
}

func TestLint(t *testing.T) {
	t.Parallel()
	for name, vals := range valueSets {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			l := lint.AllWithKubeVersion(chartDir, values(t, vals), "ops", nil)
			for _, m := range l.Messages {
				if m.Severity >= support.WarningSev {
					t.Errorf("helm lint: %s", m)
				}
			}
		})
	}
}

// objects renders the chart with vals, as `helm template` does for an install into namespace ops,
// and returns the objects by kind and name. withMonitoringCRD says whether the cluster knows the
// Prometheus Operator's ServiceMonitor.
func objects(t *testing.T, vals string, withMonitoringCRD bool) map[string]string {
	t.Helper()
	ch, err := loader.Load(chartDir)
	if err != nil {
		t.Fatal(err)
	}
	caps := chartutil.DefaultCapabilities.Copy()
	if withMonitoringCRD {
		caps.APIVersions = append(caps.APIVersions, "monitoring.coreos.com/v1", "monitoring.coreos.com/v1/ServiceMonitor")
	}
	rv, err := chartutil.ToRenderValues(ch, values(t, vals), chartutil.ReleaseOptions{Name: "tf", Namespace: "ops", IsInstall: true, Revision: 1}, caps)
	if err != nil {
		t.Fatal(err)
	}
	files, err := engine.Render(ch, rv)
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]string{}
	for _, file := range slices.Sorted(maps.Keys(files)) {
		if !strings.HasSuffix(file, ".yaml") {
			continue
		}
		for doc := range strings.SplitSeq(files[file], "\n---") {
			if strings.TrimSpace(doc) == "" {
				continue
			}
			var meta struct {
				Kind     string `json:"kind"`
				Metadata struct {
					Name string `json:"name"`
				} `json:"metadata"`
			}
			if err := yaml.Unmarshal([]byte(doc), &meta); err != nil {
				t.Fatalf("%s: %v\n%s", file, err, doc)
			}
			if meta.Kind == "" {
				continue
			}
			key := meta.Kind + "/" + meta.Metadata.Name
			if _, dup := out[key]; dup {
				t.Errorf("%s rendered twice", key)
			}
			out[key] = doc
		}
	}
	return out
}

func values(t *testing.T, s string) map[string]any {
	t.Helper()
	v, err := chartutil.ReadValues([]byte(s))
	if err != nil {
		t.Fatal(err)
	}
	return v.AsMap()
}

// decode unmarshals one rendered object strictly into its API type.
func decode[T any](t *testing.T, objs map[string]string, key string) *T {
	t.Helper()
	doc, ok := objs[key]
	if !ok {
		t.Fatalf("no %s rendered; have %v", key, slices.Sorted(maps.Keys(objs)))
	}
	v := new(T)
	if err := yaml.UnmarshalStrict([]byte(doc), v); err != nil {
		t.Fatalf("%s does not decode as the API type: %v\n%s", key, err, doc)
	}
	return v
}

func TestRenderMinimal(t *testing.T) {
	t.Parallel()
	objs := objects(t, valueSets["minimal"], false)
	for _, want := range []string{"Deployment/tf-toolfailure", "Service/tf-toolfailure", "PodDisruptionBudget/tf-toolfailure", "Secret/tf-toolfailure", "ServiceAccount/tf-toolfailure"} {
		if _, ok := objs[want]; !ok {
			t.Errorf("%s not rendered", want)
		}
	}
	for _, absent := range []string{"HorizontalPodAutoscaler/tf-toolfailure", "ServiceMonitor/tf-toolfailure", "Job/tf-toolfailure-migrate"} {
		if _, ok := objs[absent]; ok {
			t.Errorf("%s rendered although not asked for (or, for the ServiceMonitor, without its CRD)", absent)
		}
	}
	d := decode[appsv1.Deployment](t, objs, "Deployment/tf-toolfailure")
	checkPod(t, d.Spec.Template.Spec, true)
	if d.Spec.Replicas == nil || *d.Spec.Replicas != 2 {
		t.Errorf("replicas %v, want 2", d.Spec.Replicas)
	}
	c := d.Spec.Template.Spec.Containers[0]
	for _, arg := range []string{"serve", "--listen=0.0.0.0:8080", "--metrics-listen=0.0.0.0:9090", "--journal-dir=/var/lib/toolfailure/journal"} {
		if !slices.Contains(c.Args, arg) {
			t.Errorf("args %v lack %s", c.Args, arg)
		}
	}
	if !slices.ContainsFunc(d.Spec.Template.Spec.Volumes, func(v corev1.Volume) bool { return v.Name == "journal" && v.EmptyDir != nil }) {
		t.Error("no journal volume")
	}
	if len(d.Spec.Template.Spec.InitContainers) != 1 || !slices.Equal(d.Spec.Template.Spec.InitContainers[0].Args, []string{"migrate"}) {
		t.Errorf("init containers %v: want one that migrates", d.Spec.Template.Spec.InitContainers)
	}
	checkContainer(t, d.Spec.Template.Spec.InitContainers[0])

	s := decode[corev1.Secret](t, objs, "Secret/tf-toolfailure")
	if s.StringData["DATABASE_URL"] != "postgres://tf:pw@db:5432/tf" {
		t.Errorf("secret DATABASE_URL = %q", s.StringData["DATABASE_URL"])
	}
	if len(s.StringData["TOOLFAILURE_UI_SECRET"]) < 32 {
		t.Errorf("generated UI secret %q is shorter than 32 bytes", s.StringData["TOOLFAILURE_UI_SECRET"])
	}
	pdb := decode[policyv1.PodDisruptionBudget](t, objs, "PodDisruptionBudget/tf-toolfailure")
	if pdb.Spec.MinAvailable == nil || pdb.Spec.MinAvailable.IntValue() != 1 {
		t.Errorf("PDB minAvailable %v", pdb.Spec.MinAvailable)
	}
	svc := decode[corev1.Service](t, objs, "Service/tf-toolfailure")
	if len(svc.Spec.Ports) != 2 {
		t.Errorf("service ports %v: want http and metrics", svc.Spec.Ports)
	}
	// The secret's values are in the Secret only, never in the Deployment.
	if strings.Contains(objs["Deployment/tf-toolfailure"], "pw@db") {
		t.Error("the database password is in the Deployment")
	}
}

func TestRenderEverything(t *testing.T) {
	t.Parallel()
	objs := objects(t, valueSets["everything"], true)
	d := decode[appsv1.Deployment](t, objs, "Deployment/tf-toolfailure")
	checkPod(t, d.Spec.Template.Spec, true)
	if d.Spec.Replicas != nil {
		t.Errorf("replicas set to %d although the autoscaler owns them", *d.Spec.Replicas)
	}
	c := d.Spec.Template.Spec.Containers[0]
	if !strings.Contains(c.Image, "@sha256:") {
		t.Errorf("image %q does not use the digest", c.Image)
	}
	if !slices.Contains(c.Args, "--rate-limit") {
		t.Errorf("extra args missing: %v", c.Args)
	}
	if !slices.ContainsFunc(d.Spec.Template.Spec.Volumes, func(v corev1.Volume) bool {
		return v.Name == "journal" && v.PersistentVolumeClaim != nil && v.PersistentVolumeClaim.ClaimName == "toolfailure-journal"
	}) {
		t.Error("the journal does not use the existing claim")
	}
	hpa := decode[autoscalingv2.HorizontalPodAutoscaler](t, objs, "HorizontalPodAutoscaler/tf-toolfailure")
	if hpa.Spec.MaxReplicas != 12 || hpa.Spec.ScaleTargetRef.Name != "tf-toolfailure" {
		t.Errorf("HPA %+v", hpa.Spec)
	}
	sm, ok := objs["ServiceMonitor/tf-toolfailure"]
	if !ok {
		t.Fatal("no ServiceMonitor although the CRD exists")
	}
	var mon struct {
		Spec struct {
			Endpoints []struct {
				Port, Path string
			} `json:"endpoints"`
		} `json:"spec"`
	}
	if err := yaml.Unmarshal([]byte(sm), &mon); err != nil || len(mon.Spec.Endpoints) != 1 || mon.Spec.Endpoints[0].Port != "metrics" || mon.Spec.Endpoints[0].Path != "/metrics" {
		t.Errorf("ServiceMonitor endpoints %+v %v", mon.Spec.Endpoints, err)
	}
	s := decode[corev1.Secret](t, objs, "Secret/tf-toolfailure")
	for _, k := range []string{"DATABASE_URL", "TOOLFAILURE_READ_DATABASE_URL", "TOOLFAILURE_UI_SECRET", "OTEL_EXPORTER_OTLP_ENDPOINT"} {
		if s.StringData[k] == "" {
			t.Errorf("secret has no %s", k)
		}
	}
}

func TestRenderExistingSecretAndJob(t *testing.T) {
	t.Parallel()
	objs := objects(t, valueSets["existing-secret-and-job"], true)
	if _, ok := objs["Secret/tf-toolfailure"]; ok {
		t.Error("a Secret was rendered although an existing one is named")
	}
	if _, ok := objs["ServiceMonitor/tf-toolfailure"]; ok {
		t.Error("a ServiceMonitor was rendered with metrics off")
	}
	d := decode[appsv1.Deployment](t, objs, "Deployment/tf-toolfailure")
	checkPod(t, d.Spec.Template.Spec, false)
	if len(d.Spec.Template.Spec.InitContainers) != 0 {
		t.Error("an init container migrates although the Job does")
	}
	for _, e := range d.Spec.Template.Spec.Containers[0].Env {
		if e.ValueFrom != nil && e.ValueFrom.SecretKeyRef != nil && e.ValueFrom.SecretKeyRef.Name != "toolfailure-db" {
			t.Errorf("env %s reads secret %s, want toolfailure-db", e.Name, e.ValueFrom.SecretKeyRef.Name)
		}
	}
	job := decode[batchv1.Job](t, objs, "Job/tf-toolfailure-migrate")
	if job.Annotations["helm.sh/hook"] != "pre-install,pre-upgrade" {
		t.Errorf("migration Job hook %q", job.Annotations["helm.sh/hook"])
	}
	checkContainer(t, job.Spec.Template.Spec.Containers[0])
	if !slices.Equal(job.Spec.Template.Spec.Containers[0].Args, []string{"migrate"}) {
		t.Errorf("Job args %v", job.Spec.Template.Spec.Containers[0].Args)
	}
}

// envOf returns the container's environment by name: the literal value, or "secret:KEY".
func envOf(c corev1.Container) map[string]string {
	env := map[string]string{}
	for _, e := range c.Env {
		if e.ValueFrom != nil && e.ValueFrom.SecretKeyRef != nil {
			env[e.Name] = "secret:" + e.ValueFrom.SecretKeyRef.Key
			continue
		}
		env[e.Name] = e.Value
	}
	return env
}

// The service exports nothing unless OTEL_TRACES_EXPORTER / OTEL_METRICS_EXPORTER name an
// exporter, so the endpoint alone must bring them, and no endpoint must leave telemetry off.
func TestOTLPEndpointAloneExports(t *testing.T) {
	t.Parallel()
	for name, tc := range map[string]struct {
		vals string
		want map[string]string // "" means: not set
	}{
		"no endpoint": {valueSets["minimal"], map[string]string{
			"OTEL_TRACES_EXPORTER": "", "OTEL_METRICS_EXPORTER": "", "OTEL_EXPORTER_OTLP_PROTOCOL": ""}},
		"endpoint alone": {`secrets: {databaseUrl: "postgres://x", otlpEndpoint: "http://otel-collector:4318"}`, map[string]string{
			"OTEL_EXPORTER_OTLP_ENDPOINT": "secret:OTEL_EXPORTER_OTLP_ENDPOINT",
			"OTEL_TRACES_EXPORTER":        "otlp", "OTEL_METRICS_EXPORTER": "otlp", "OTEL_EXPORTER_OTLP_PROTOCOL": "http/protobuf"}},
		"grpc, traces only": {`{secrets: {databaseUrl: "postgres://x", otlpEndpoint: "http://c:4317"}, telemetry: {metrics: false, protocol: grpc}}`, map[string]string{
			"OTEL_TRACES_EXPORTER": "otlp", "OTEL_METRICS_EXPORTER": "none", "OTEL_EXPORTER_OTLP_PROTOCOL": "grpc"}},
		"existing secret": {`{secrets: {create: false, existingSecret: tf}, telemetry: {otlpFromExistingSecret: true}}`, map[string]string{
			"OTEL_EXPORTER_OTLP_ENDPOINT": "secret:OTEL_EXPORTER_OTLP_ENDPOINT",
			"OTEL_TRACES_EXPORTER":        "otlp", "OTEL_METRICS_EXPORTER": "otlp"}},
	} {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			objs := objects(t, tc.vals, false)
			d := decode[appsv1.Deployment](t, objs, "Deployment/tf-toolfailure")
			env := envOf(d.Spec.Template.Spec.Containers[0])
			for k, want := range tc.want {
				if got, ok := env[k]; got != want || (want == "" && ok) {
					t.Errorf("env %s = %q (set: %v), want %q", k, got, ok, want)
				}
			}
		})
	}
}

// At SIGTERM serve fails readiness and keeps serving for the drain delay, then gives calls in
// flight the grace: the pod must be given all of that before Kubernetes kills it, and the drain
// must outlast the time the readiness probe takes to notice.
func TestShutdownTimings(t *testing.T) {
	t.Parallel()
	for name, vals := range map[string]string{
		"defaults": valueSets["minimal"],
		"set":      `{secrets: {databaseUrl: "postgres://x"}, shutdown: {drainDelaySeconds: 15, graceSeconds: 45}}`,
	} {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			v := values(t, vals)
			drain, grace := int64(10), int64(20)
			if sh, ok := v["shutdown"].(map[string]any); ok {
				drain, grace = int64(sh["drainDelaySeconds"].(float64)), int64(sh["graceSeconds"].(float64))
			}
			objs := objects(t, vals, false)
			pod := decode[appsv1.Deployment](t, objs, "Deployment/tf-toolfailure").Spec.Template.Spec
			c := pod.Containers[0]
			for _, arg := range []string{fmt.Sprintf("--drain-delay=%ds", drain), fmt.Sprintf("--shutdown-grace=%ds", grace)} {
				if !slices.Contains(c.Args, arg) {
					t.Errorf("args %v lack %s", c.Args, arg)
				}
			}
			if p := pod.TerminationGracePeriodSeconds; p == nil || *p < drain+grace+5 {
				t.Errorf("terminationGracePeriodSeconds %v: want at least drain %d + grace %d + a margin", p, drain, grace)
			}
			if rp := c.ReadinessProbe; name == "defaults" && int64(rp.PeriodSeconds*rp.FailureThreshold) > drain {
				t.Errorf("the readiness probe notices a failure after %d s, the drain lasts %d s", rp.PeriodSeconds*rp.FailureThreshold, drain)
			}
			if c.Lifecycle != nil && c.Lifecycle.PreStop != nil {
				t.Error("a preStop hook: serve drains by itself at SIGTERM, and the image has no shell to sleep in")
			}
		})
	}
}

// The chart runs, by default, the image that deploy/image builds and names: image.repository
// tagged with the chart's appVersion (deploy/image reads both from the chart and its test checks
// the archive's name against them).
func TestDefaultImageIsTheBuiltOne(t *testing.T) {
	t.Parallel()
	ch, err := loader.Load(chartDir)
	if err != nil {
		t.Fatal(err)
	}
	objs := objects(t, valueSets["minimal"], false)
	d := decode[appsv1.Deployment](t, objs, "Deployment/tf-toolfailure")
	want := "ghcr.io/omcp/toolfailure:" + ch.Metadata.AppVersion
	if got := d.Spec.Template.Spec.Containers[0].Image; got != want {
		t.Errorf("default image %q, want %q", got, want)
	}
	if ch.Metadata.AppVersion != ch.Metadata.Version {
		t.Logf("appVersion %s differs from the chart's version %s", ch.Metadata.AppVersion, ch.Metadata.Version)
	}
}

// values.schema.json refuses a wrong value in helm template, install and lint, as --set gives
// it, before anything renders; the message names the value.
func TestSchemaRefusesBadValues(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct{ set, want string }{
		{"replicaCount=two", "replicaCount"},
		{"replicaCount=-1", "replicaCount"},
		{"replicacount=3", "replicacount"}, // misspelt: silently ignored without the schema
		{"image.pullPolicy=Sometimes", "pullPolicy"},
		{"service.port=0", "port"},
		{"service.type=Ingress", "type"},
		{"shutdown.graceSeconds=0", "graceSeconds"},
		{"shutdown.drainDelaySeconds=10s", "drainDelaySeconds"},
		{"telemetry.protocol=http", "protocol"},
		{"telemetry.traces=yes", "traces"},
		{"secrets.databaseUrl=mysql://x", "databaseUrl"},
		{"secrets.uiSecret=short", "uiSecret"},
		{"journal.maxBytes=0", "maxBytes"},
		{"podDisruptionBudget.minAvailable=half", "minAvailable"},
		{"metrics.serviceMonitor.interval=often", "interval"},
	} {
		t.Run(tc.set, func(t *testing.T) {
			t.Parallel()
			vals := values(t, valueSets["minimal"])
			if err := strvals.ParseInto(tc.set, vals); err != nil {
				t.Fatal(err)
			}
			ch, err := loader.Load(chartDir)
			if err != nil {
				t.Fatal(err)
			}
			// What helm template and helm install run before rendering.
			_, err = chartutil.ToRenderValues(ch, vals, chartutil.ReleaseOptions{Name: "tf", Namespace: "ops", IsInstall: true}, chartutil.DefaultCapabilities)
			if err == nil || !strings.Contains(err.Error(), "schema") || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("--set %s: %v, want a schema error naming %s", tc.set, err, tc.want)
			}
			// And what helm lint runs.
			l := lint.AllWithKubeVersion(chartDir, vals, "ops", nil)
			refused := false
			for _, m := range l.Messages {
				refused = refused || (m.Severity == support.ErrorSev && strings.Contains(m.Err.Error(), tc.want))
			}
			if !refused {
				t.Errorf("helm lint --set %s passed: %v", tc.set, l.Messages)
			}
		})
	}
}

// Every value in values.yaml is described in values.schema.json, so that a value added later
// is checked too (the schema refuses keys it does not know, which this keeps honest).
func TestSchemaCoversEveryValue(t *testing.T) {
	t.Parallel()
	var schema map[string]any
	b, err := os.ReadFile(chartDir + "/values.schema.json")
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(b, &schema); err != nil {
		t.Fatal(err)
	}
	b, err = os.ReadFile(chartDir + "/values.yaml")
	if err != nil {
		t.Fatal(err)
	}
	var vals map[string]any
	if err := yaml.Unmarshal(b, &vals); err != nil {
		t.Fatal(err)
	}
	defs, _ := schema["definitions"].(map[string]any)
	var walk func(path string, v any, s map[string]any)
	walk = func(path string, v any, s map[string]any) {
		if ref, ok := s["$ref"].(string); ok {
			s, _ = defs[strings.TrimPrefix(ref, "#/definitions/")].(map[string]any)
		}
		if s == nil || s["type"] == nil && s["anyOf"] == nil {
			t.Errorf("%s: no type in the schema", path)
			return
		}
		m, ok := v.(map[string]any)
		props, hasProps := s["properties"].(map[string]any)
		if !ok || !hasProps {
			return // a leaf, or an object passed through as a Kubernetes type
		}
		for k, sub := range m {
			ps, _ := props[k].(map[string]any)
			if ps == nil {
				t.Errorf("%s.%s is in values.yaml but not in values.schema.json", path, k)
				continue
			}
			walk(path+"."+k, sub, ps)
		}
	}
	walk("values", vals, schema)
}

// Bad values fail the render with a message that names the value, never a half-rendered chart.
func TestRenderRefusesBadValues(t *testing.T) {
	t.Parallel()
	for name, tc := range map[string]struct{ vals, want string }{
		"no database URL":        {`{}`, "secrets.databaseUrl is required"},
		"job without own secret": {`{secrets: {databaseUrl: "postgres://x"}, migration: {job: true}}`, "migration.job needs secrets.existingSecret"},
	} {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			ch, err := loader.Load(chartDir)
			if err != nil {
				t.Fatal(err)
			}
			rv, err := chartutil.ToRenderValues(ch, values(t, tc.vals), chartutil.ReleaseOptions{Name: "tf", Namespace: "ops", IsInstall: true}, chartutil.DefaultCapabilities)
			if err != nil {
				t.Fatal(err)
			}
			_, err = engine.Render(ch, rv)
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("render: %v, want an error with %q", err, tc.want)
			}
		})
	}
}

// checkPod asserts what every configuration must keep: probes on /readyz and /livez, a non-root pod with a
// read-only root filesystem, and a writable /tmp.
func checkPod(t *testing.T, pod corev1.PodSpec, metrics bool) {
	t.Helper()
	psc := pod.SecurityContext
	if psc == nil || psc.RunAsNonRoot == nil || !*psc.RunAsNonRoot || psc.RunAsUser == nil || *psc.RunAsUser == 0 {
		t.Errorf("pod security context %+v: want non-root", psc)
	}
	if pod.AutomountServiceAccountToken == nil || *pod.AutomountServiceAccountToken {
		t.Error("the service account token is mounted; the service never talks to the Kubernetes API")
	}
	if len(pod.Containers) != 1 {
		t.Fatalf("%d containers, want 1", len(pod.Containers))
	}
	c := pod.Containers[0]
	checkContainer(t, c)
	// Liveness never asks the database, so that an outage does not restart every pod; readiness
	// does.
	for name, want := range map[string]struct {
		p    *corev1.Probe
		path string
	}{"readiness": {c.ReadinessProbe, "/readyz"}, "liveness": {c.LivenessProbe, "/livez"}} {
		p := want.p
		if p == nil || p.HTTPGet == nil || p.HTTPGet.Path != want.path || p.HTTPGet.Port.String() != "http" {
			t.Errorf("%s probe %+v: want GET %s on port http", name, p, want.path)
		}
	}
	if !slices.ContainsFunc(c.VolumeMounts, func(m corev1.VolumeMount) bool { return m.MountPath == "/tmp" }) {
		t.Error("no writable /tmp on a read-only root filesystem")
	}
	hasMetricsPort := slices.ContainsFunc(c.Ports, func(p corev1.ContainerPort) bool { return p.Name == "metrics" })
	if hasMetricsPort != metrics {
		t.Errorf("metrics port present = %v, want %v", hasMetricsPort, metrics)
	}
	names := map[string]bool{}
	for _, e := range c.Env {
		names[e.Name] = true
		if e.Value != "" && (e.Name == "DATABASE_URL" || strings.Contains(e.Name, "SECRET")) {
			t.Errorf("env %s has a literal value; secrets come from a Secret", e.Name)
		}
	}
	for _, want := range []string{"DATABASE_URL", "TOOLFAILURE_UI_SECRET", "OTEL_EXPORTER_OTLP_ENDPOINT", "TOOLFAILURE_READ_DATABASE_URL"} {
		if !names[want] {
			t.Errorf("env lacks %s", want)
		}
	}
}

func checkContainer(t *testing.T, c corev1.Container) {
	t.Helper()
	sc := c.SecurityContext
	if sc == nil || sc.ReadOnlyRootFilesystem == nil || !*sc.ReadOnlyRootFilesystem {
		t.Errorf("container %s: root filesystem not read-only", c.Name)
	}
	if sc == nil || sc.AllowPrivilegeEscalation == nil || *sc.AllowPrivilegeEscalation {
		t.Errorf("container %s: privilege escalation allowed", c.Name)
	}
	if sc == nil || sc.Capabilities == nil || !slices.Contains(sc.Capabilities.Drop, "ALL") {
		t.Errorf("container %s: capabilities not dropped", c.Name)
	}
}
