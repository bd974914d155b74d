{{- define "toolfailure.fullname" -}}
{{- if contains .Chart.Name .Release.Name -}}
{{- .Release.Name | trunc 63 | trimSuffix "-" -}}
{{- else -}}
{{- printf "%s-%s" .Release.Name .Chart.Name | trunc 63 | trimSuffix "-" -}}
{{- end -}}
{{- end -}}

{{- define "toolfailure.selectorLabels" -}}
app.kubernetes.io/name: {{ .Chart.Name }}
app.kubernetes.io/instance: {{ .Release.Name }}
{{- end -}}

{{- define "toolfailure.labels" -}}
{{ include "toolfailure.selectorLabels" . }}
app.kubernetes.io/version: {{ .Chart.AppVersion | quote }}
app.kubernetes.io/managed-by: {{ .Release.Service }}
helm.sh/chart: {{ printf "%s-%s" .Chart.Name .Chart.Version }}
{{- end -}}

{{- define "toolfailure.image" -}}
{{- if .Values.image.digest -}}
{{ .Values.image.repository }}@{{ .Values.image.digest }}
{{- else -}}
{{ .Values.image.repository }}:{{ .Values.image.tag | default .Chart.AppVersion }}
{{- end -}}
{{- end -}}

{{- define "toolfailure.secretName" -}}
{{- if .Values.secrets.existingSecret -}}
{{ .Values.secrets.existingSecret }}
{{- else -}}
{{ include "toolfailure.fullname" . }}
{{- end -}}
{{- end -}}

{{- define "toolfailure.serviceAccountName" -}}
{{- if .Values.serviceAccount.create -}}
{{ .Values.serviceAccount.name | default (include "toolfailure.fullname" .) }}
{{- else -}}
{{ .Values.serviceAccount.name | default "default" }}
{{- end -}}
{{- end -}}

{{/* The environment every toolfailure container gets: the secrets, all optional but the URL. */}}
{{- define "toolfailure.env" -}}
- name: DATABASE_URL
  valueFrom: {secretKeyRef: {name: {{ include "toolfailure.secretName" . }}, key: DATABASE_URL}}
- name: TOOLFAILURE_UI_SECRET
  valueFrom: {secretKeyRef: {name: {{ include "toolfailure.secretName" . }}, key: TOOLFAILURE_UI_SECRET, optional: true}}
- name: TOOLFAILURE_READ_DATABASE_URL
  valueFrom: {secretKeyRef: {name: {{ include "toolfailure.secretName" . }}, key: TOOLFAILURE_READ_DATABASE_URL, optional: true}}
- name: OTEL_EXPORTER_OTLP_ENDPOINT
  valueFrom: {secretKeyRef: {name: {{ include "toolfailure.secretName" . }}, key: OTEL_EXPORTER_OTLP_ENDPOINT, optional: true}}
- name: OTEL_EXPORTER_OTLP_HEADERS
  valueFrom: {secretKeyRef: {name: {{ include "toolfailure.secretName" . }}, key: OTEL_EXPORTER_OTLP_HEADERS, optional: true}}
{{- end -}}

{{/*
What turns OTLP export on: the service exports nothing unless OTEL_*_EXPORTER names an exporter,
so an endpoint alone would be silently unused.
*/}}
{{- define "toolfailure.otelEnv" -}}
{{- if or .Values.secrets.otlpEndpoint .Values.telemetry.otlpFromExistingSecret -}}
- name: OTEL_TRACES_EXPORTER
  value: {{ ternary "otlp" "none" .Values.telemetry.traces | quote }}
- name: OTEL_METRICS_EXPORTER
  value: {{ ternary "otlp" "none" .Values.telemetry.metrics | quote }}
- name: OTEL_EXPORTER_OTLP_PROTOCOL
  value: {{ .Values.telemetry.protocol | quote }}
{{- end }}
{{- end -}}
