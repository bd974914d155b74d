package bench

import (
	"context"
	"fmt"
	"sync"
	"sync/atomic"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/omcp/toolfailure/store"
	"github.com/omcp/toolfailure/store/postgres"
)

// dropAge is how old the day of the partition that --drop-partition fills is: older than the 30
// days that --seed fills, so that a retention between the two expires that day alone.
const (
	dropAge       = 60 * 24 * time.Hour
	dropRetention = 45 // days
)

// dropPartition measures what retention by partitions costs while the service works: it fills
// one day two months back with cfg.DropPartition records, starts a fresh service and a steady
// Classify load on it, gives the tenant a retention that expires that day only, and runs one
// retention round (store.Store.PurgeExpired, as the service's retention loop does), which drops
// the day's partition. It reports how long the round took and the slowest Classify call during
// it, each against its floor, beside the slowest before it.
func dropPartition(ctx context.Context, cfg Config, admin *pgx.Conn, schema, serviceURL string, tenant store.Tenant, key string, logf func(string, ...any)) (bool, error) {
	day := time.Now().Add(-dropAge).UTC().Truncate(24 * time.Hour)
	logf("seeding %d records on %s", cfg.DropPartition, day.Format(time.DateOnly))
	if err := seed(ctx, admin, serviceURL, schema, tenant, cfg.DropPartition, day, day.Add(24*time.Hour-time.Millisecond), logf, nil); err != nil {
		return false, err
	}
	s, err := postgres.Open(ctx, serviceURL)
	if err != nil {
		return false, err
	}
	defer s.Close()
	svc, err := startChild(ctx, cfg.Binary, append([]string{"serve", "--database-url", serviceURL}, cfg.ServeArgs...), cfg.Log)
	if err != nil {
		return false, fmt.Errorf("start the service: %w", err)
	}
	defer svc.stop(logf)

	// A steady load of a few callers, each call's latency kept with its start time.
	type sample struct {
		at  time.Time
		lat time.Duration
	}
	var (
		mu      sync.Mutex
		samples []sample
		failed  atomic.Int64
		stop    = make(chan struct{})
		wg      sync.WaitGroup
		next    atomic.Int64
	)
	c := client(cfg.FloorCallers)
	endpoint := svc.base + "/toolfailure.v1.ClassifierService/Classify"
	for range cfg.FloorCallers {
		wg.Go(func() {
			for {
				select {
				case <-stop:
					return
				default:
				}
				t0 := time.Now()
				err := call(ctx, c, endpoint, key, requestMix[int(next.Add(1))%len(requestMix)])
				lat := time.Since(t0)
				if err != nil {
					failed.Add(1)
				}
				mu.Lock()
				samples = append(samples, sample{t0, lat})
				mu.Unlock()
			}
		})
	}
	time.Sleep(2 * time.Second) // load before the drop, for comparison
	if err := s.SetRetention(ctx, tenant.ID, dropRetention); err != nil {
		close(stop)
		wg.Wait()
		return false, err
	}
	start := time.Now()
	removed, err := s.PurgeExpired(ctx, start, 0)
	took := time.Since(start)
	time.Sleep(time.Second) // and after it
	close(stop)
	wg.Wait()
	if err != nil {
		return false, fmt.Errorf("retention round: %w", err)
	}

	var worstBefore, worstDuring time.Duration
	calls := 0
	for _, smp := range samples {
		end := smp.at.Add(smp.lat)
		switch {
		case end.Before(start):
			worstBefore = max(worstBefore, smp.lat)
		case !smp.at.After(start.Add(took)):
			worstDuring = max(worstDuring, smp.lat)
			calls++
		}
	}
	ok := true
	verdict := verdicts(&ok)
	fmt.Fprintf(cfg.Out, "\npartition drop: retention round removed %d records (one day's partition of %d) in %s; floor <= %s  %s\n",
		removed, cfg.DropPartition, ms(took), ms(FloorPartitionDrop), verdict(took <= FloorPartitionDrop && removed == int64(cfg.DropPartition)))
	fmt.Fprintf(cfg.Out, "Classify at %d callers: slowest call overlapping the round %s (%d calls), slowest before it %s; floor <= %s  %s\n",
		cfg.FloorCallers, ms(worstDuring), calls, ms(worstBefore), ms(FloorDropStall), verdict(worstDuring <= FloorDropStall))
	fmt.Fprintf(cfg.Out, "failed Classify calls: %d  %s\n", failed.Load(), verdict(failed.Load() == 0))
	return ok, nil
}
