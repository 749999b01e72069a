package baton

import (
	"sort"
	"time"
)

// sentAhead holds the runs an engine sent ahead of their instant (protocol 2: startInMs) until it
// comes, as the Node SDK's pool does (libs/executor-sdk/src/pool.ts). They are queued — they take
// queue places and count against the credit — but wait apart from the line, so a run due now is
// not held behind them. Runs sharing an instant share one timer: a burst sent ahead costs one
// timer, not one a run. Guarded by the executor's lock.
type sentAhead struct {
	jobs   map[int64][]*job // by instant (epoch ms on this machine's clock), in the order they came
	timers map[int64]*time.Timer
	count  int
}

func newSentAhead() sentAhead {
	return sentAhead{jobs: map[int64][]*job{}, timers: map[int64]*time.Timer{}}
}

// add holds j until at; due(at) is called (without the lock) when the instant's timer fires.
func (s *sentAhead) add(j *job, at int64, due func(at int64)) {
	j.startAt = at
	if _, armed := s.timers[at]; !armed {
		s.timers[at] = time.AfterFunc(time.Until(time.UnixMilli(at)), func() { due(at) })
	}
	s.jobs[at] = append(s.jobs[at], j)
	s.count++
}

// remove takes j out if it waits for its instant; false if it does not.
func (s *sentAhead) remove(j *job) bool {
	jobs := s.jobs[j.startAt]
	for i, w := range jobs {
		if w != j {
			continue
		}
		s.count--
		if len(jobs) == 1 {
			s.forget(j.startAt)
		} else {
			s.jobs[j.startAt] = append(jobs[:i:i], jobs[i+1:]...)
		}
		return true
	}
	return false
}

// due takes the runs of the instant at once the clock has reached it. A timer may fire a little
// before the wall clock gets there: it is then set again and none is taken, never start early.
func (s *sentAhead) due(at int64) []*job {
	timer, ok := s.timers[at]
	if !ok {
		return nil // dropped meanwhile
	}
	if wait := time.Until(time.UnixMilli(at)); wait > 0 {
		timer.Reset(wait)
		return nil
	}
	jobs := s.jobs[at]
	s.count -= len(jobs)
	s.forget(at)
	return jobs
}

// takeAfter takes the runs whose instant is after the given one, the earliest first.
func (s *sentAhead) takeAfter(after int64) []*job {
	var instants []int64
	for at := range s.jobs {
		if at > after {
			instants = append(instants, at)
		}
	}
	sort.Slice(instants, func(a, b int) bool { return instants[a] < instants[b] })
	var jobs []*job
	for _, at := range instants {
		jobs = append(jobs, s.jobs[at]...)
		s.count -= len(s.jobs[at])
		s.forget(at)
	}
	return jobs
}

func (s *sentAhead) forget(at int64) {
	s.timers[at].Stop()
	delete(s.timers, at)
	delete(s.jobs, at)
}
