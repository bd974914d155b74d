// Package bench is `toolfailure bench`: a side-by-side benchmark that says what the service costs,
// measured against the least that any Connect service on the same machine could cost.
//
// A number like "7,000 requests/s" means little on its own: it depends on the machine, on what
// else runs there, and on the load generator, which shares the cores. So one run starts two
// processes from the same binary and drives both with the same load:
//
//   - a zero-work handler (`toolfailure bench zero-work`): the same framework (connect-go), codecs,
//     HTTP server settings, Go runtime settings (the service's GOGC and memory limit) and response
//     shape as Classify, a bearer-key check and a random correlation ID, and nothing else;
//   - the real service (`toolfailure serve`) on PostgreSQL, in a schema that the run creates and
//     drops, with the flags given in --serve-args.
//
// The load is a closed loop of callers (32 for throughput, 4 for the latency floor), each sending
// Connect JSON requests over HTTP/1.1 keep-alive connections, cycling through a fixed mix of
// realistic raw errors (requestMix). Measurements alternate between the two targets, and the order
// flips every round, so that drift of the machine (other work, thermal limits) does not favour one.
// Each measurement is preceded by an unmeasured warm-up. The load generator itself collects its
// garbage rarely (GOGC=1000 unless GOGC is set), because its pauses would be added to every
// latency it measures.
//
// For every measurement it prints requests/s, p50 and p99 latency, CPU microseconds per request of
// the target process and, for the service, of the PostgreSQL processes that did its work (its own
// connections, found in pg_stat_activity by an application name unique to the run, plus the WAL
// writer, checkpointer and background writer), all read from /proc/<pid>/stat; for the service,
// the rows per commit of its group commit (requests over the transactions that the database's
// statistics counted meanwhile, so approximate: they are reported about once a second); and the
// resident set size. The summary judges the service against an absolute budget, with the median
// and the spread over the rounds: its own CPU and PostgreSQL's per durable Classify at the
// throughput load, its p99 at the latency load, and its peak RSS, against BudgetServiceCPU,
// BudgetPostgresCPU, FloorP99 and FloorRSS.
//
// The zero-work handler's figures and the service/zero-work ratios are printed for information:
// they say how the machine behaved, not whether the service meets its budget.
//
// The CPU of PostgreSQL can only be read when the database runs on the same machine; otherwise it
// is reported as n/a. The WAL writer and checkpointer serve every database of the server, so on a
// shared server the numbers include some of other users' work.
//
// With --seed N the run then adds N records with COPY (in time order over 30 days, as a service
// would have written them, then VACUUM ANALYZE), starts a fresh service, and measures what a
// support engineer waits for: GetFailure of 2,000 random records (p50, p99; floor FloorGetP99) and
// the first page of ListFailures unfiltered and with each kind of filter (floor FloorListFirstPage),
// and it reports the table's size per record, indexes included, and a page of ListGroups over the
// last 24 hours, by count, by last seen, unclassified and for one tool (floors FloorGroupsP50 and
// FloorGroupsP99); seeded records fall into 2,000 problems with Zipf-distributed frequencies. --schema keeps the schema, so that a
// seeded table can be measured again with --lookups and no new seeding.
//
// With --drop-partition N the run fills one UTC day two months back (its own partition) with N
// records, starts a fresh service under a steady Classify load at the latency load's callers,
// gives the tenant a retention that expires that day only, and runs one retention round as the
// service's retention loop would: it reports the round's time (floor FloorPartitionDrop) and the
// slowest Classify call that overlapped it (floor FloorDropStall), beside the slowest before it.
//
// --zero-work-args passes flags to the zero-work handler. With "--commit-wait 1ms" it waits for a
// simulated group commit before each answer (calls queue, one goroutine sleeps for the commit's
// latency and releases the whole batch), which prices what waiting for a database costs a handler
// that does nothing else: the goroutine that parks, the threads that wake, net/http's background
// read on the idle connection.
//
// Run it on a quiet machine: the budget is for a machine that runs nothing else, and a busy
// neighbour moves the figures.
//
//	toolfailure bench --database-url postgres://postgres@127.0.0.1:5432/postgres?sslmode=disable
//	toolfailure bench --rounds 0 --seed 10000000
//	toolfailure bench --rounds 0 --drop-partition 1000000
package bench
