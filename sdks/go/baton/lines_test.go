package baton

import (
	"context"
	"fmt"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
)

// Runs waiting for a worker take it task by task in turn: a task's backlog queued first does not
// keep another task's runs waiting behind all of it (one line started b1 b2 b3 b4 i1 c1 i2).
func TestRunsInLineTakeTheWorkerTaskByTask(t *testing.T) {
	engine := &fakeEngine{finals: map[string]string{}}
	srv := httptest.NewServer(engine)
	t.Cleanup(srv.Close)
	release := make(chan struct{})
	var mu sync.Mutex
	var started []string
	e := startExecutor(t, srv.URL, Options{Concurrency: 1, QueueLimit: 10}, Handle("gate", func(ctx context.Context, run *Run) (any, error) {
		mu.Lock()
		started = append(started, run.TaskName)
		mu.Unlock()
		select {
		case <-release:
		case <-ctx.Done():
		}
		return nil, nil
	}))
	order := func() string { mu.Lock(); defer mu.Unlock(); return strings.Join(started, " ") }
	runs := []struct {
		task int64
		name string
	}{{1, "b1"}, {1, "b2"}, {1, "b3"}, {1, "b4"}, {2, "i1"}, {3, "c1"}, {2, "i2"}}
	for i, r := range runs {
		run := dispatchOf(srv.URL, int64(i+1), "gate", nil)
		run["taskId"], run["taskName"] = r.task, r.name
		if status := signed(t, e, "POST", "/baton/runs", run, nil); status != 202 {
			t.Fatalf("dispatch of %s: %d", r.name, status)
		}
		if i == 0 {
			waitFor(t, "b1 running", func() bool { return order() == "b1" })
		}
	}
	for n := 2; n <= len(runs); n++ {
		release <- struct{}{}
		waitFor(t, fmt.Sprintf("%d runs started", n), func() bool { return len(strings.Fields(order())) == n })
	}
	release <- struct{}{}
	if got, want := order(), "b1 b2 i1 c1 b3 i2 b4"; got != want {
		t.Errorf("runs started in the order %q; want %q", got, want)
	}
}

// An aborted run leaves its line, and a task whose line it emptied loses its turn.
func TestTaskLinesRemove(t *testing.T) {
	l := newTaskLines()
	of := func(task, run int64) *job { return &job{req: dispatchRequest{TaskID: task, RunID: run}} }
	b1, b2, i1, c1 := of(1, 1), of(1, 2), of(2, 3), of(3, 4)
	for _, j := range []*job{b1, b2, i1, c1} {
		l.push(j)
	}
	if !l.remove(i1) || l.remove(i1) {
		t.Fatal("i1 removed once, then not found")
	}
	var got []int64
	for j := l.pop(); j != nil; j = l.pop() {
		got = append(got, j.req.RunID)
	}
	if fmt.Sprint(got) != "[1 4 2]" || l.len() != 0 {
		t.Errorf("popped %v (left %d); want [1 4 2]", got, l.len())
	}
}
