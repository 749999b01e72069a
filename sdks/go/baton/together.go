package baton

import (
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"strconv"
	"strings"
	"sync"
)

// maxRequestBytes is the most bytes of one batch request's body: under the console's 1 MB JSON
// limit, whatever the items weigh.
const maxRequestBytes = 900_000

// together sends items submitted one at a time by any number of goroutines in batch requests —
// the group commit of a client: an item leaves at once when no request is in flight; while one
// is, the items submitted meanwhile wait and leave together in the next (up to maxItems, in as
// many requests as their bytes need). So a service submitting thousands a second makes a few
// dozen requests, and the console pays its cost per request that often, not per item. One
// request in flight, not two: with two, the second mostly carried the few items of one round
// trip, and the console's cost per request, paid twice as often, made every start later
// (docs/BENCHMARKS.md, On demand: the Node SDK's measurement, whose sendTogether this mirrors).
//
// A request refused as a whole (400: an item whose shape the console refuses before writing
// anything; 413) is sent again in halves down to the item at fault, which gets that refusal
// alone: a bad item never costs the items it was sent with.
type together[I any, R any] struct {
	// send is one batch request: each item's result, in order, or the refusal of the whole.
	send     func(items []I) ([]R, error)
	maxItems int
	// refused is an item's result for a refusal of the request that carried it alone.
	refused func(err *APIError) R

	mu       sync.Mutex
	waiting  []*waitingItem[I, R]
	inFlight bool
}

type waitingItem[I any, R any] struct {
	item I
	// size is its JSON's bytes.
	size int
	done chan itemOutcome[R]
}

type itemOutcome[R any] struct {
	result R
	err    error
}

// push queues item and returns where its result will come (at most maxWaiting waiting: past it
// an *APIError 429 CLIENT_BACKLOG at once). An item that is not JSON is refused here, alone, not
// in the request of the items it would have gone with.
func (t *together[I, R]) push(item I, maxWaiting int, what string) (<-chan itemOutcome[R], error) {
	text, err := json.Marshal(item)
	if err != nil {
		return nil, fmt.Errorf("baton: the %s is not JSON: %w", strings.TrimSuffix(what, "s"), err)
	}
	w := &waitingItem[I, R]{item: item, size: len(text) + 1, done: make(chan itemOutcome[R], 1)}
	t.mu.Lock()
	if len(t.waiting) >= maxWaiting {
		n := len(t.waiting)
		t.mu.Unlock()
		return nil, &APIError{Status: http.StatusTooManyRequests, Code: "CLIENT_BACKLOG", Message: strconv.Itoa(n) + " " + what + " are waiting to be sent to the console already (MaxWaiting)"}
	}
	t.waiting = append(t.waiting, w)
	start := !t.inFlight
	t.inFlight = true
	t.mu.Unlock()
	if start {
		go t.drain()
	}
	return w.done, nil
}

// drain sends what waits, one batch at a time, until nothing does.
func (t *together[I, R]) drain() {
	for {
		t.mu.Lock()
		if len(t.waiting) == 0 {
			t.inFlight = false
			t.mu.Unlock()
			return
		}
		n := len(t.waiting)
		if n > t.maxItems {
			n = t.maxItems
		}
		batch := t.waiting[:n:n]
		t.waiting = append([]*waitingItem[I, R](nil), t.waiting[n:]...)
		t.mu.Unlock()
		t.sendBatch(batch)
	}
}

// sendBatch sends the batch in requests of at most maxRequestBytes, at once, and hands each item its outcome.
func (t *together[I, R]) sendBatch(batch []*waitingItem[I, R]) {
	var groups [][]*waitingItem[I, R]
	var group []*waitingItem[I, R]
	bytes := 0
	for _, w := range batch {
		if bytes+w.size > maxRequestBytes && len(group) > 0 {
			groups, group, bytes = append(groups, group), nil, 0
		}
		group = append(group, w)
		bytes += w.size
	}
	groups = append(groups, group)
	var wg sync.WaitGroup
	for _, g := range groups {
		wg.Add(1)
		go func(g []*waitingItem[I, R]) {
			defer wg.Done()
			items := make([]I, len(g))
			for i, w := range g {
				items[i] = w.item
			}
			for i, outcome := range t.sendSplitting(items) {
				g[i].done <- outcome
			}
		}(g)
	}
	wg.Wait()
}

// sendSplitting sends items in one request, each its outcome; refused as a whole for their shape
// or size, in halves, each half's items answered by that half's request.
func (t *together[I, R]) sendSplitting(items []I) []itemOutcome[R] {
	outcomes := make([]itemOutcome[R], len(items))
	results, err := t.send(items)
	var refused *APIError
	splittable := errors.As(err, &refused) && (refused.Status == http.StatusBadRequest || refused.Status == http.StatusRequestEntityTooLarge)
	switch {
	case err == nil && len(results) != len(items):
		err = &APIError{Status: 0, Code: "BAD_ANSWER", Message: "the console answered " + strconv.Itoa(len(results)) + " results for " + strconv.Itoa(len(items)) + " items"}
		fallthrough
	case err != nil && (!splittable || len(items) == 1):
		for i := range outcomes {
			if splittable {
				outcomes[i] = itemOutcome[R]{result: t.refused(refused)}
			} else {
				outcomes[i] = itemOutcome[R]{err: err}
			}
		}
		return outcomes
	case err == nil:
		for i, r := range results {
			outcomes[i] = itemOutcome[R]{result: r}
		}
		return outcomes
	}
	half := (len(items) + 1) / 2
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		copy(outcomes, t.sendSplitting(items[:half]))
	}()
	copy(outcomes[half:], t.sendSplitting(items[half:]))
	wg.Wait()
	return outcomes
}
