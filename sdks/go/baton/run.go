package baton

import (
	"context"
	"fmt"
	"math"
	"os"
	"os/signal"
	"syscall"
	"time"
)

// Shutdown stops the executor gracefully: new dispatches get 503, queued runs end ABORTED
// (SHUTDOWN) but for runs sent ahead whose instant comes within ShutdownGrace, which start then;
// a heartbeat says it is draining, running handlers get ShutdownGrace and are then aborted,
// pending callbacks get ShutdownFlush; then a last heartbeat, and the server closes.
// ctx bounds the whole stop.
func (e *Executor) Shutdown(ctx context.Context) error {
	e.mu.Lock()
	if e.draining {
		e.mu.Unlock()
		return nil
	}
	e.draining = true
	// A run sent ahead whose instant comes within the grace is kept: it was accepted, and it starts
	// then like one running now. ABORTED would fail a run that a deploy merely came close to.
	unstarted := append(e.line.drain(), e.ahead.takeAfter(nowMs()+e.opts.ShutdownGrace.Milliseconds())...)
	e.lineShrank()
	idle := len(unstarted) == 0 && len(e.jobs) == 0 && len(e.pending) == 0
	e.mu.Unlock()
	e.dropUnstarted(unstarted)
	// Announce draining while work is left. An idle executor has only its last word to say: two
	// heartbeats alike in the same millisecond would carry the same signature, and the engine
	// refuses the second as a replay.
	if !idle {
		go e.beat()
	}
	e.waitUntil(ctx, e.opts.ShutdownGrace, func() bool { return len(e.jobs) == 0 })
	e.mu.Lock()
	// Kept runs that have not started by now (no worker came free, or ctx cut the grace short)
	// end as the queued ones did.
	unstarted = append(e.line.drain(), e.ahead.takeAfter(math.MinInt64)...)
	e.lineShrank()
	for _, j := range e.jobs {
		j.abort("SHUTDOWN")
	}
	e.mu.Unlock()
	e.dropUnstarted(unstarted)
	e.waitUntil(ctx, e.opts.AbortGrace+time.Second, func() bool { return len(e.jobs) == 0 })
	e.waitUntil(ctx, e.opts.ShutdownFlush, func() bool { return len(e.pending) == 0 })
	e.mu.Lock()
	undelivered := len(e.pending)
	e.mu.Unlock()
	if undelivered > 0 {
		if e.spool != nil {
			e.warn("%d callback(s) not delivered yet: they stay in %s for the next start", undelivered, e.opts.SpoolFile)
		} else {
			e.warn("%d callback(s) could not be delivered before exit", undelivered)
		}
	}
	e.lastBeat() // last word: draining, nothing in flight
	e.stopOnce.Do(func() {
		e.mu.Lock()
		close(e.stopped)
		e.wakeWorker.Broadcast()
		e.mu.Unlock()
	})
	err := e.server.Shutdown(ctx)
	if e.spool != nil {
		e.spool.close()
	}
	return err
}

// dropUnstarted ends runs that never started ABORTED (SHUTDOWN).
func (e *Executor) dropUnstarted(jobs []*job) {
	for _, j := range jobs {
		j.abort("SHUTDOWN")
		e.finish(j, outcome{kind: "ABORTED", err: "aborted: the executor shut down before the run started"}, 0)
	}
}

// waitUntil waits, at most d (and not past ctx), for done (checked under the lock).
func (e *Executor) waitUntil(ctx context.Context, d time.Duration, done func() bool) {
	timer := time.AfterFunc(d, func() { e.mu.Lock(); e.changed.Broadcast(); e.mu.Unlock() })
	defer timer.Stop()
	deadline := time.Now().Add(d)
	e.mu.Lock()
	defer e.mu.Unlock()
	for !done() && time.Now().Before(deadline) && ctx.Err() == nil {
		e.changed.Wait()
	}
}

// Main runs an executor as a program: options from the BATON_* environment, Start, `READY <url>`
// on stdout (what supervisors and tests wait for), then on SIGTERM or SIGINT a graceful Shutdown
// and exit 0. It exits 1 on a configuration or start error.
func Main(handlers ...Handler) {
	opts, err := OptionsFromEnv(nil)
	if err != nil {
		fmt.Fprintln(os.Stderr, "baton executor:", err)
		os.Exit(1)
	}
	e, err := New(opts, handlers...)
	if err == nil {
		err = e.Start()
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "baton executor:", err)
		os.Exit(1)
	}
	// Listening for the signals before READY: a supervisor may stop the executor the moment it
	// reads that line, and a SIGTERM before Notify would kill the process instead of draining it.
	stop := make(chan os.Signal, 1)
	signal.Notify(stop, syscall.SIGTERM, syscall.SIGINT)
	fmt.Println("READY " + e.URL())
	<-stop
	signal.Stop(stop)
	e.opts.Logger.Printf("stopping gracefully")
	ctx, cancel := context.WithTimeout(context.Background(), e.opts.ShutdownGrace+e.opts.AbortGrace+e.opts.ShutdownFlush+10*time.Second)
	defer cancel()
	if err := e.Shutdown(ctx); err != nil {
		e.opts.Logger.Printf("shutdown: %v", err)
	}
	os.Exit(0)
}
