package baton

import (
	"context"
	"net"
	"net/http"
	"net/http/httptest"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// An engine that hangs (black-holed, frozen) accepts connections and never answers: the
// heartbeat goes on to the next engine after heartbeatTry, long before RequestTimeout.
func TestAHangingEngineDoesNotHoldTheHeartbeat(t *testing.T) {
	hanging, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	var mu sync.Mutex
	var held []net.Conn
	go func() {
		for {
			c, err := hanging.Accept()
			if err != nil {
				return
			}
			mu.Lock()
			held = append(held, c)
			mu.Unlock()
		}
	}()
	t.Cleanup(func() {
		_ = hanging.Close()
		mu.Lock()
		defer mu.Unlock()
		for _, c := range held {
			_ = c.Close()
		}
	})
	var beats atomic.Int32
	live := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/baton/executors/heartbeat" {
			beats.Add(1)
			_, _ = w.Write([]byte(`{"executorId":1,"intervalMs":60000}`))
			return
		}
		w.WriteHeader(404)
	}))
	t.Cleanup(live.Close)
	e, err := New(Options{Tenant: "acme", Secret: "secret", EngineURLs: []string{"http://" + hanging.Addr().String(), live.URL}, Logger: discardLogger, RequestTimeout: time.Minute})
	if err == nil {
		err = e.Start()
	}
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		_ = e.Shutdown(ctx)
	})
	waitFor(t, "a heartbeat on the engine that answers", func() bool { return beats.Load() > 0 })
}
