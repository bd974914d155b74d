package mcpproxy

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"time"

	"connectrpc.com/connect/v2"

	toolfailurev1 "github.com/omcp/toolfailure/gen/toolfailure/v1"
	"github.com/omcp/toolfailure/internal/serviceurl"
)

// checkTimeout bounds the start-up check. The check runs beside the relay,
// never in front of it, so a slow service delays only the verdict.
const checkTimeout = 10 * time.Second

// checkTool is the tool name of the start-up check's Explain call, so that a
// rule author who sees it in a trace knows where it came from.
const checkTool = "toolfailure-proxy-startup-check"

// explainer is the part of the ClassifierService client that the start-up
// check uses: Explain stores nothing, needs the same key and scope as
// Classify, and so is a true no-op probe of both.
type explainer interface {
	Explain(context.Context, *toolfailurev1.ExplainRequest) (*toolfailurev1.ExplainResponse, error)
}

// CheckService makes one authenticated no-op call to the service (Explain,
// which stores nothing) and returns nil when the proxy will be able to
// annotate: the URL is an http or https URL, the service answers there, and
// it accepts the key with the report scope. Otherwise the error names the
// exact problem, and the proxy says it once on its logger and to every
// client session that accepts log messages (see Config). The relay is not
// affected either way: failed results simply go out unchanged, as they
// would without the proxy.
//
// A Classifier that is not the generated ClassifierService client (a cache
// or breaker of the deployment's own) cannot be probed: CheckService then
// checks only the URL.
func (p *Proxy) CheckService(ctx context.Context) error {
	if p.cfg.Classifier == nil {
		return errors.New(p.unavailable())
	}
	// Without a URL the caller's Classifier knows where it goes.
	if p.cfg.ServiceURL != "" {
		if err := serviceurl.Check(p.cfg.ServiceURL); err != nil {
			p.warn(err.Error())
			return err
		}
	}
	ex, ok := p.cfg.Classifier.(explainer)
	if !ok {
		return nil
	}
	ctx, cancel := context.WithTimeout(ctx, checkTimeout)
	defer cancel()
	_, err := ex.Explain(ctx, &toolfailurev1.ExplainRequest{
		Tool:  checkTool,
		Error: &toolfailurev1.RawError{Message: "start-up check of toolfailure proxy"},
	})
	if err != nil {
		err = p.explainCheck(err)
		p.warn(err.Error())
		return err
	}
	p.cfg.Logger.Info("toolfailure proxy: the toolfailure service accepts the key; failed tool results will be annotated",
		slog.String("service", p.cfg.ServiceURL))
	return nil
}

// explainCheck turns the start-up check's error into what to do about it.
func (p *Proxy) explainCheck(err error) error {
	at := ""
	if p.cfg.ServiceURL != "" {
		at = " at " + p.cfg.ServiceURL
	}
	switch connect.CodeOf(err) {
	case connect.CodeUnauthenticated:
		return fmt.Errorf("the toolfailure service%s does not know the API key (unauthenticated): check the key", at)
	case connect.CodePermissionDenied:
		return fmt.Errorf("the API key lacks the report scope that the proxy needs (permission denied by the toolfailure service%s): create a key with --scopes report", at)
	case connect.CodeUnimplemented, connect.CodeNotFound:
		return fmt.Errorf("the server%s answers, but not as a toolfailure service (%v): check the URL", at, err)
	case connect.CodeDeadlineExceeded:
		return fmt.Errorf("the toolfailure service%s did not answer within %v", at, checkTimeout)
	case connect.CodeUnavailable:
		return fmt.Errorf("cannot reach the toolfailure service%s: %v", at, err)
	}
	return fmt.Errorf("the start-up check against the toolfailure service%s failed: %v", at, err)
}
