package postgres

import (
	"context"
	"fmt"

	"go.opentelemetry.io/otel"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/metric"
)

// RegisterMetrics publishes the store's state as callback instruments of provider (nil means the
// global provider), read at each collection:
//
//   - toolfailure.store.commit.queue: records waiting for a group commit. It stays near zero
//     while the database keeps up; a queue that grows is the first sign that it does not.
//   - toolfailure.store.pool.connections {state: acquired, idle}, and
//     toolfailure.store.pool.max: the connection pool, whose exhaustion shows up as latency
//     everywhere else.
//
// Unregister the registration before closing the store.
func (s *Store) RegisterMetrics(provider metric.MeterProvider) (metric.Registration, error) {
	if provider == nil {
		provider = otel.GetMeterProvider()
	}
	meter := provider.Meter("github.com/omcp/toolfailure/store/postgres")
	queue, err1 := meter.Int64ObservableGauge("toolfailure.store.commit.queue",
		metric.WithUnit("{record}"), metric.WithDescription("Records waiting for a group commit"))
	conns, err2 := meter.Int64ObservableGauge("toolfailure.store.pool.connections",
		metric.WithUnit("{connection}"), metric.WithDescription("Database connections of the pool, by state (acquired, idle)"))
	maxConns, err3 := meter.Int64ObservableGauge("toolfailure.store.pool.max",
		metric.WithUnit("{connection}"), metric.WithDescription("Largest number of database connections the pool opens"))
	for _, err := range []error{err1, err2, err3} {
		if err != nil {
			return nil, fmt.Errorf("postgres store metrics: %w", err)
		}
	}
	acquired := metric.WithAttributeSet(attribute.NewSet(attribute.String("state", "acquired")))
	idle := metric.WithAttributeSet(attribute.NewSet(attribute.String("state", "idle")))
	reg, err := meter.RegisterCallback(func(_ context.Context, o metric.Observer) error {
		st := s.pool.Stat()
		o.ObserveInt64(queue, int64(s.writer.q.Len()))
		o.ObserveInt64(conns, int64(st.AcquiredConns()), acquired)
		o.ObserveInt64(conns, int64(st.IdleConns()), idle)
		o.ObserveInt64(maxConns, int64(st.MaxConns()))
		return nil
	}, queue, conns, maxConns)
	if err != nil {
		return nil, fmt.Errorf("postgres store metrics: %w", err)
	}
	return reg, nil
}
