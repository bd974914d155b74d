package journal

import (
	"context"
	"fmt"

	"go.opentelemetry.io/otel"
	"go.opentelemetry.io/otel/metric"
)

// RegisterMetrics publishes the journal's Status as OpenTelemetry instruments of provider (nil
// means the global provider):
// toolfailure.journal.degraded (1 while the store is unavailable), .pending (records not yet in
// the store), .size (bytes on disk), and the counters .journaled, .drained and .quarantined. An
// alert on degraded, or on pending staying above zero, is the signal that the database is down
// and the journal is carrying the service.
func (s *Store) RegisterMetrics(provider metric.MeterProvider) (metric.Registration, error) {
	if provider == nil {
		provider = otel.GetMeterProvider()
	}
	meter := provider.Meter("github.com/omcp/toolfailure/store/journal")
	degraded, err1 := meter.Int64ObservableGauge("toolfailure.journal.degraded",
		metric.WithDescription("1 while the store is unavailable and records go to the local journal"))
	pending, err2 := meter.Int64ObservableGauge("toolfailure.journal.pending",
		metric.WithDescription("Records in the local journal that the store does not have yet"), metric.WithUnit("{record}"))
	size, err3 := meter.Int64ObservableGauge("toolfailure.journal.size",
		metric.WithDescription("Size of the local journal on disk"), metric.WithUnit("By"))
	journaled, err4 := meter.Int64ObservableCounter("toolfailure.journal.journaled",
		metric.WithDescription("Records written to the local journal"), metric.WithUnit("{record}"))
	drained, err5 := meter.Int64ObservableCounter("toolfailure.journal.drained",
		metric.WithDescription("Journaled records replayed into the store"), metric.WithUnit("{record}"))
	quarantined, err6 := meter.Int64ObservableCounter("toolfailure.journal.quarantined",
		metric.WithDescription("Journaled records that the store refused for good"), metric.WithUnit("{record}"))
	for _, err := range []error{err1, err2, err3, err4, err5, err6} {
		if err != nil {
			return nil, fmt.Errorf("journal metrics: %w", err)
		}
	}
	reg, err := meter.RegisterCallback(func(_ context.Context, o metric.Observer) error {
		st := s.Status()
		d := int64(0)
		if st.Degraded {
			d = 1
		}
		o.ObserveInt64(degraded, d)
		o.ObserveInt64(pending, int64(st.Pending))
		o.ObserveInt64(size, st.Bytes)
		o.ObserveInt64(journaled, int64(st.Journaled))
		o.ObserveInt64(drained, int64(st.Drained))
		o.ObserveInt64(quarantined, int64(st.Quarantined))
		return nil
	}, degraded, pending, size, journaled, drained, quarantined)
	if err != nil {
		return nil, fmt.Errorf("journal metrics: %w", err)
	}
	return reg, nil
}

// HealthDetail describes a degraded state in one line for /healthz, or returns "" when the store
// answers and nothing is pending.
func (s *Store) HealthDetail() string {
	st := s.Status()
	switch {
	case st.Degraded:
		return fmt.Sprintf("degraded: the database is unavailable; %d failure records kept in the local journal", st.Pending)
	case st.Pending > 0:
		return fmt.Sprintf("recovering: replaying %d journaled failure records into the database", st.Pending)
	}
	return ""
}
