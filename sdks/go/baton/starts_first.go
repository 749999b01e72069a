package baton

import (
	"sync"
	"time"
)

// mostHeldForStarts bounds how long a final callback is held back while runs wait in line to
// start. A callback sets an engine and its database to work on the cores the next start needs,
// so while runs whose time has come wait for a worker, starting them goes first; but the
// outcome must not wait on a line that stays full, hence a short bound (the Node SDK's
// MOST_HELD_MS: a 4,000-run burst sent ahead started within ~0.6 s of its instant). Holding
// never loses a callback: it is in the spool already.
const mostHeldForStarts = 250 * time.Millisecond

// startsFirst holds final callbacks back while runs wait in line for a worker, as the Node SDK's
// StartsFirst (libs/executor-sdk/src/starts-first.ts). One hold at a time: the callbacks that
// end during it wait for the same release — the line empties, or mostHeldForStarts passes — so
// they go out together, in full batches. Guarded by the executor's lock.
type startsFirst struct {
	held  chan struct{} // closed at the release; nil while nothing is held
	timer *time.Timer
}

var notHeld = func() chan struct{} { c := make(chan struct{}); close(c); return c }()

// turn is closed when a final callback may go: at once unless lineWaiting. lock is the lock
// guarding s, taken by the hold's timer.
func (s *startsFirst) turn(lineWaiting bool, lock sync.Locker) <-chan struct{} {
	if !lineWaiting {
		return notHeld
	}
	if s.held == nil {
		held := make(chan struct{})
		s.held = held
		s.timer = time.AfterFunc(mostHeldForStarts, func() {
			lock.Lock()
			defer lock.Unlock()
			if s.held == held {
				s.release()
			}
		})
	}
	return s.held
}

// release lets the held callbacks go.
func (s *startsFirst) release() {
	if s.held == nil {
		return
	}
	s.timer.Stop()
	close(s.held)
	s.held, s.timer = nil, nil
}
