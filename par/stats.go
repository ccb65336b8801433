package par

import "time"

// WorkerStats are the counters of one worker, or of the callers' slots.
type WorkerStats struct {
	Pieces       int64         // pieces of ranges and forked tasks run (forks run inline are added when the worker finishes its task)
	Steals       int64         // tasks taken from another worker
	FailedSteals int64         // steal attempts that found nothing or lost a race
	Splits       int64         // ranges split in half on demand
	Busy         time.Duration // time spent running pieces
	Idle         time.Duration // time spent parked
}

// Stats is a snapshot of a pool's counters with the figures derived from
// them.
type Stats struct {
	Workers []WorkerStats // one entry per worker thread (a pool of parallelism P runs P-1)
	Callers WorkerStats   // work done by goroutines that called a verb from outside the pool

	// The derived figures count the callers as one more participant next to
	// the workers (a pool of parallelism P runs P-1 worker threads).

	// Imbalance is max/mean busy time over workers (1 is perfect; goal < 1.2).
	Imbalance float64
	// Straggler is max/median busy time over workers (goal < 2).
	Straggler float64
	// Utilization is total busy time / (workers × wall time since the
	// counters were last reset) (goal > 0.9 while a loop runs).
	Utilization float64
	// StealRate is steals / pieces run.
	StealRate float64
	// Wall is the time since the counters were last reset.
	Wall time.Duration
}
