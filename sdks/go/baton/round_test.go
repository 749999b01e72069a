package baton

import (
	"testing"
	"time"
)

// The first engine answers late (after the round has moved on), the second answers 503: the
// late 200 settles the round, and the slow engine was set aside.
func TestALateAnswerThatSettlesTheRoundStillCounts(t *testing.T) {
	late := make(chan answer, 1)
	var aside []string
	send := func(url string) <-chan answer {
		if url == "slow" {
			return late
		}
		ch := make(chan answer, 1)
		ch <- answer{503, nil, 0}
		late <- answer{200, nil, 0} // the slow engine answers once the other one has refused
		return ch
	}
	settled, answers := engineRound([]string{"slow", "busy"}, send, settles, 10*time.Millisecond, func(url string) { aside = append(aside, url) })
	if settled == nil || settled.url != "slow" || settled.status != 200 {
		t.Fatalf("settled by %+v, want the slow engine's 200 (answers %+v)", settled, answers)
	}
	if len(aside) != 1 || aside[0] != "slow" {
		t.Errorf("set aside %v, want [slow]", aside)
	}
}

// Every engine answers without settling: the round ends with every answer and none settling.
func TestARoundEndsOnceEveryEngineHasAnswered(t *testing.T) {
	send := func(url string) <-chan answer {
		ch := make(chan answer, 1)
		ch <- answer{503, []byte(url), 0}
		return ch
	}
	settled, answers := engineRound([]string{"a", "b", "c"}, send, settles, time.Minute, func(string) { t.Error("no engine is slow here") })
	if settled != nil || len(answers) != 3 {
		t.Fatalf("settled %+v, %d answers; want none settled and 3 answers", settled, len(answers))
	}
}
