// The demo executor's handlers (apps/demo-executor/src/handlers.ts) on the Go SDK: the demo
// tenant's tasks run on it, and it is what the conformance suite and the cluster test start.
//
// Configuration: the BATON_* variables of the SDK (see ../../README.md), plus
// BATON_DEMO_RECORD_FILE: append a JSON line {runId, attempt, handler, pid, at} per invocation.
package main

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"sync"
	"time"

	"github.com/baton-dev/baton/sdks/go/baton"
)

// params are the demo handlers' params; absent fields keep the defaults set before Bind.
type params struct {
	Ms           float64  `json:"ms"`
	SliceMs      float64  `json:"sliceMs"`
	Failures     float64  `json:"failures"`
	NonRetryable bool     `json:"nonRetryable"`
	Items        float64  `json:"items"`
	FailShard    *float64 `json:"failShard"`
	Severity     string   `json:"severity"`
	Message      string   `json:"message"`
	Count        float64  `json:"count"`
	Data         any      `json:"data"`
}

func bind(run *baton.Run, p params) params {
	_ = run.Bind(&p) // params of another shape keep the defaults, as the Node demo does
	return p
}

func ms(v float64) time.Duration { return time.Duration(v * float64(time.Millisecond)) }

var sleepSchema = json.RawMessage(`{"type":"object","properties":{"ms":{"type":"integer","minimum":0,"maximum":3600000,"description":"How long to sleep, in milliseconds (default 1000)"}},"additionalProperties":false}`)

var shardSchema = json.RawMessage(`{"type":"object","properties":{"items":{"type":"integer","minimum":0,"description":"Items to share out (default 100)"},"ms":{"type":"integer","minimum":0,"description":"Work time per shard, in milliseconds (default 0)"},"failShard":{"type":"integer","minimum":0,"description":"This shard fails…"},"failures":{"type":"integer","minimum":0,"description":"…while its attempt is at most this (default 1)"}},"additionalProperties":false}`)

var handlers = []baton.Handler{
	baton.Handle("noop", func(ctx context.Context, run *baton.Run) (any, error) {
		return map[string]bool{"ok": true}, nil
	}),
	{Name: "sleep", ParamsSchema: sleepSchema, Run: func(ctx context.Context, run *baton.Run) (any, error) {
		p := bind(run, params{Ms: 1000})
		return map[string]float64{"sleptMs": p.Ms}, baton.Sleep(ctx, ms(p.Ms))
	}},
	baton.Handle("fail-n-times", func(ctx context.Context, run *baton.Run) (any, error) {
		p := bind(run, params{Failures: 1})
		message := fmt.Sprintf("planned failure on attempt %d (fails %v time(s))", run.Attempt, p.Failures)
		if float64(run.Attempt) <= p.Failures && p.NonRetryable {
			return nil, baton.NonRetryable("%s", message)
		}
		if float64(run.Attempt) <= p.Failures {
			return nil, fmt.Errorf("%s", message)
		}
		return map[string]int{"succeededOnAttempt": run.Attempt}, nil
	}),
	baton.Handle("long-running", func(ctx context.Context, run *baton.Run) (any, error) {
		p := bind(run, params{Ms: 10_000})
		for step := 1; step <= 10; step++ {
			if err := baton.Sleep(ctx, ms(p.Ms/10)); err != nil {
				return nil, err
			}
			run.Progress(float64(step * 10))
			run.Infof("step %d/10 done", step)
		}
		return map[string]float64{"ms": p.Ms}, nil
	}),
	baton.Handle("cpu-burn", func(ctx context.Context, run *baton.Run) (any, error) {
		p := bind(run, params{Ms: 1000})
		started, slices, x := time.Now(), 0, 0
		for time.Since(started) < ms(p.Ms) {
			if err := ctx.Err(); err != nil {
				return nil, err
			}
			for sliceEnd := time.Now().Add(10 * time.Millisecond); time.Now().Before(sliceEnd); {
				x = (x*31 + 7) % 1_000_003
			}
			slices++
		}
		return map[string]int64{"burnedMs": time.Since(started).Milliseconds(), "slices": int64(slices), "checksum": int64(x)}, nil
	}),
	baton.Handle("alarm", func(ctx context.Context, run *baton.Run) (any, error) {
		p := bind(run, params{Message: "demo alarm", Count: 1})
		count := int(p.Count)
		if count < 1 {
			count = 1
		}
		for i := 1; i <= count; i++ {
			message := p.Message
			if count > 1 {
				message = fmt.Sprintf("%s #%d", p.Message, i)
			}
			run.Alarm(baton.Severity(p.Severity), message, p.Data)
		}
		if p.Ms > 0 {
			if err := baton.Sleep(ctx, ms(p.Ms)); err != nil {
				return nil, err
			}
		}
		return map[string]int{"alarms": count}, nil
	}),
	baton.Handle("record", func(ctx context.Context, run *baton.Run) (any, error) {
		return map[string]any{"recorded": true, "runId": run.RunID, "attempt": run.Attempt}, nil
	}),
	{Name: "shard-part", ParamsSchema: shardSchema, Run: func(ctx context.Context, run *baton.Run) (any, error) {
		p := bind(run, params{Items: 100, Failures: 1})
		if p.Ms > 0 {
			if err := baton.Sleep(ctx, ms(p.Ms)); err != nil {
				return nil, err
			}
		}
		if p.FailShard != nil && int(*p.FailShard) == run.ShardIndex && float64(run.Attempt) <= p.Failures {
			return nil, fmt.Errorf("planned failure of shard %d on attempt %d", run.ShardIndex, run.Attempt)
		}
		mine := 0
		for item := run.ShardIndex; item < int(p.Items); item += run.ShardTotal {
			mine++
		}
		run.Infof("shard %d of %d: %d of %d items", run.ShardIndex, run.ShardTotal, mine, int(p.Items))
		return map[string]int{"shardIndex": run.ShardIndex, "shardTotal": run.ShardTotal, "items": mine}, nil
	}},
}

// recorded wraps each handler to append a line to the record file first (cluster tests count invocations).
func recorded(file string, hs []baton.Handler) []baton.Handler {
	var mu sync.Mutex
	out := make([]baton.Handler, len(hs))
	for i, h := range hs {
		inner := h.Run
		h.Run = func(ctx context.Context, run *baton.Run) (any, error) {
			line, _ := json.Marshal(map[string]any{"runId": run.RunID, "attempt": run.Attempt, "handler": run.Handler, "pid": os.Getpid(), "at": time.Now().UnixMilli()})
			mu.Lock()
			f, err := os.OpenFile(file, os.O_APPEND|os.O_CREATE|os.O_WRONLY, 0o644)
			if err == nil {
				_, err = f.Write(append(line, '\n'))
				f.Close()
			}
			mu.Unlock()
			if err != nil {
				return nil, fmt.Errorf("record file %s: %w", file, err)
			}
			return inner(ctx, run)
		}
		out[i] = h
	}
	return out
}

func main() {
	if file := os.Getenv("BATON_DEMO_RECORD_FILE"); file != "" {
		baton.Main(recorded(file, handlers)...)
	}
	baton.Main(handlers...)
}
