package baton

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"sync/atomic"
	"testing"
	"time"
)

func TestClientSendsAgainAfterRetryAfterAndNamesRefusedFields(t *testing.T) {
	var calls atomic.Int32
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Header.Get("X-API-Key") != "key" || r.Header.Get("Idempotency-Key") != "k-1" {
			t.Errorf("headers: %v", r.Header)
		}
		w.Header().Set("Content-Type", "application/json")
		switch calls.Add(1) {
		case 1:
			w.Header().Set("Retry-After", "0")
			w.WriteHeader(http.StatusTooManyRequests)
			_, _ = w.Write([]byte(`{"statusCode":429,"code":"RATE_LIMITED","message":"busy"}`))
		case 2:
			w.WriteHeader(http.StatusCreated)
			_, _ = w.Write([]byte(`{"id":7,"taskId":3,"state":"PENDING","createdAt":1}`))
		default:
			w.WriteHeader(http.StatusBadRequest)
			_, _ = w.Write([]byte(`{"statusCode":400,"code":"VALIDATION_FAILED","message":"bad","errors":[{"field":"params","reason":"must be a JSON value"}]}`))
		}
	}))
	defer srv.Close()
	c, err := NewClient(srv.URL, "key")
	if err != nil {
		t.Fatal(err)
	}
	c.MaxRetryWait = 10 * time.Millisecond
	run, created, err := c.Trigger(context.Background(), 3, SubmitRun{Params: map[string]any{"a": 1}, IdempotencyKey: "k-1"})
	if err != nil || !created || run.ID != 7 || calls.Load() != 2 {
		t.Fatalf("run %+v created %v err %v after %d calls", run, created, err, calls.Load())
	}
	_, _, err = c.Trigger(context.Background(), 3, SubmitRun{IdempotencyKey: "k-1"})
	var refused *APIError
	if !errors.As(err, &refused) || refused.Status != 400 || refused.Code != "VALIDATION_FAILED" || len(refused.Errors) != 1 || refused.Errors[0].Field != "params" {
		t.Fatalf("refusal %#v", err)
	}
}

func TestClientDoesNotResendAnUnansweredRequestWithoutAnIdempotencyKey(t *testing.T) {
	var calls atomic.Int32
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		calls.Add(1)
		hj, _ := w.(http.Hijacker)
		conn, _, _ := hj.Hijack()
		_ = conn.Close() // no answer: the run may or may not have been made
	}))
	defer srv.Close()
	c, _ := NewClient(srv.URL, "key")
	c.MaxRetryWait = time.Millisecond
	_, _, err := c.Trigger(context.Background(), 3, SubmitRun{})
	var refused *APIError
	if !errors.As(err, &refused) || refused.Code != "UNREACHABLE" || calls.Load() != 1 {
		t.Fatalf("err %v after %d calls", err, calls.Load())
	}
	if _, err := NewClient("ftp://x", "key"); err == nil {
		t.Fatal("an ftp URL was taken")
	}
}

// downURL is a loopback URL nothing listens on (a console down).
func downURL(t *testing.T) string {
	srv := httptest.NewServer(http.NotFoundHandler())
	url := srv.URL
	srv.Close()
	return url
}

func TestClientMovesToTheNextConsoleWhenAConnectionCannotBeOpenedAndStaysThere(t *testing.T) {
	var calls atomic.Int32
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		calls.Add(1)
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(http.StatusCreated)
		_, _ = w.Write([]byte(`{"id":9,"taskId":3,"state":"PENDING","createdAt":1}`))
	}))
	defer srv.Close()
	c, err := NewClient(downURL(t)+", "+srv.URL, "key")
	if err != nil {
		t.Fatal(err)
	}
	// No idempotency key: sent again all the same, since the first console never got it.
	for i := 0; i < 2; i++ {
		if run, _, err := c.Trigger(context.Background(), 3, SubmitRun{}); err != nil || run.ID != 9 {
			t.Fatalf("run %+v err %v", run, err)
		}
	}
	if calls.Load() != 2 || c.current.Load() != 1 {
		t.Fatalf("%d calls, console %d", calls.Load(), c.current.Load())
	}
}

func TestClientSendsARefusedConnectionAgainAfterAWaitWhenEveryConsoleRefusedIt(t *testing.T) {
	c, err := NewClient(downURL(t)+","+downURL(t), "key")
	if err != nil {
		t.Fatal(err)
	}
	c.Retries = 1
	c.MaxRetryWait = time.Millisecond
	_, _, err = c.Trigger(context.Background(), 3, SubmitRun{})
	var refused *APIError
	if !errors.As(err, &refused) || refused.Code != "UNREACHABLE" {
		t.Fatalf("err %v", err)
	}
	if _, err := NewClient("http://a:1,ftp://b", "key"); err == nil {
		t.Fatal("an ftp URL among several was taken")
	}
}
