package baton

import (
	"bytes"
	"encoding/json"
	"sync"
	"time"
)

const (
	maxCallbacksPerBatch = 100
	// A batch request's body stays under this (engines take signed bodies up to 2 MiB).
	maxBatchBytes = 1 << 20
	// A callback larger than this (big result, many log lines) goes on its own.
	maxBatchedCallbackBytes = 64 * 1024
	// Batch requests in flight to one engine at once; what becomes ready meanwhile waits for the next.
	batchConcurrency = 2
)

type answer struct {
	status int
	body   []byte
	// A 429's Retry-After (0 when none).
	retryAfter time.Duration
}

type batchItem struct {
	body   []byte
	answer chan answer
	// Closed when the callback's round is over (another engine took it): not sent if still queued.
	done <-chan struct{}
}

// callbackBatches sends the final callbacks that are ready at the same moment to one engine as
// one POST /baton/callbacks/batch (a burst of short runs ends together), each getting back its
// own answer, as the Node SDK does (libs/executor-sdk/src/callback-batches.ts): one signed
// request instead of one per run costs the executor and the engine less. A lone callback and a
// large one use the plain route; an engine that answers 404 to a batch gets them one by one from
// then on; a batch refused for its shape or size (400, 413) is sent one by one so each callback
// is judged on its own; any other answer to the batch is every callback's answer. At most
// CallbackConcurrency requests are in flight at once, to all engines together, not counting
// those that have gone unanswered for RerouteAfter (post): a hanging engine keeps its requests
// (at most batchConcurrency) but not the slots that callbacks to the other engines need.
type callbackBatches struct {
	e            *Executor
	url          string
	mu           sync.Mutex
	queue        []*batchItem
	inFlight     int
	noBatchRoute bool
}

func (e *Executor) batchesFor(url string) *callbackBatches {
	e.mu.Lock()
	defer e.mu.Unlock()
	b, ok := e.batches[url]
	if !ok {
		b = &callbackBatches{e: e, url: url}
		e.batches[url] = b
	}
	return b
}

// send delivers one serialised final callback to the engine; its answer comes on the channel.
// Once `done` is closed (the callback's round is over), a callback still waiting for a batch to
// this engine is left out (answered status 0 unsent): a hanging engine's line does not grow with
// callbacks that other engines took, nor replay them when it is back.
func (b *callbackBatches) send(body []byte, done <-chan struct{}) <-chan answer {
	item := &batchItem{body: body, answer: make(chan answer, 1), done: done}
	b.mu.Lock()
	b.queue = append(b.queue, item)
	b.kick()
	b.mu.Unlock()
	return item.answer
}

// kick starts flushes while there is room. Under b.mu.
func (b *callbackBatches) kick() {
	waiting := b.queue[:0]
	for _, it := range b.queue {
		select {
		case <-it.done:
			it.answer <- answer{0, []byte("not sent: another engine took it"), 0} // ends the round's wait on it
		default:
			waiting = append(waiting, it)
		}
	}
	b.queue = waiting
	for b.inFlight < batchConcurrency && len(b.queue) > 0 {
		n := len(b.queue)
		if n > maxCallbacksPerBatch {
			n = maxCallbacksPerBatch
		}
		items := append([]*batchItem(nil), b.queue[:n]...)
		b.queue = append(b.queue[:0], b.queue[n:]...)
		b.inFlight++
		go func() {
			b.flush(items)
			b.mu.Lock()
			b.inFlight--
			b.kick()
			b.mu.Unlock()
		}()
	}
}

func (b *callbackBatches) flush(items []*batchItem) {
	var group []*batchItem
	size := 0
	for _, it := range items {
		if len(it.body) > maxBatchedCallbackBytes {
			b.alone(it)
			continue
		}
		if len(group) > 0 && size+len(it.body) > maxBatchBytes {
			b.sendGroup(group)
			group, size = nil, 0
		}
		group = append(group, it)
		size += len(it.body) + 1
	}
	if len(group) > 0 {
		b.sendGroup(group)
	}
}

func (b *callbackBatches) alone(it *batchItem) {
	it.answer <- b.post("/baton/callbacks", it.body)
}

func (b *callbackBatches) sendGroup(group []*batchItem) {
	b.mu.Lock()
	noBatch := b.noBatchRoute
	b.mu.Unlock()
	if len(group) == 1 || noBatch {
		for _, it := range group {
			b.alone(it)
		}
		return
	}
	parts := make([][]byte, len(group))
	for i, it := range group {
		parts[i] = it.body
	}
	payload := append(append([]byte(`{"callbacks":[`), bytes.Join(parts, []byte(","))...), ']', '}')
	whole := b.post("/baton/callbacks/batch", payload)
	status, body := whole.status, whole.body
	if status == 404 {
		b.mu.Lock()
		b.noBatchRoute = true
		b.mu.Unlock()
	}
	if status == 404 || status == 400 || status == 413 {
		for _, it := range group {
			b.alone(it)
		}
		return
	}
	var reply struct {
		Results []struct {
			Status int             `json:"status"`
			Body   json.RawMessage `json:"body"`
		} `json:"results"`
	}
	if status != 200 {
		for _, it := range group {
			it.answer <- whole // every callback's answer, a 429's Retry-After included
		}
		return
	}
	if json.Unmarshal(body, &reply) != nil || len(reply.Results) != len(group) {
		for _, it := range group {
			it.answer <- answer{0, []byte("malformed batch reply"), 0}
		}
		return
	}
	for i, it := range group {
		it.answer <- answer{reply.Results[i].Status, reply.Results[i].Body, 0}
	}
}

// post is one request to the engine once a slot is free (first come, first served). The slot is
// given back when the engine answers, or once it has not answered within RerouteAfter: the
// callbacks in it have gone to the next engine meanwhile (engineRound), and a hanging engine's
// requests, which wait out RequestTimeout, must not hold every slot (CallbackConcurrency 2 and
// one engine hanging: no callback could go anywhere for 10 s).
func (b *callbackBatches) post(path string, body []byte) answer {
	b.e.requests <- struct{}{}
	var once sync.Once
	release := func() { once.Do(func() { <-b.e.requests }) }
	slow := time.AfterFunc(b.e.opts.RerouteAfter, release)
	defer func() {
		slow.Stop()
		release()
	}()
	return b.e.postAnswer(b.url, path, body)
}
