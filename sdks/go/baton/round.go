package baton

import "time"

// engineAnswer is one engine's answer, with the engine's base URL.
type engineAnswer struct {
	url string
	answer
}

// engineRound is one round over the engines, in `urls`' order, that one hanging engine cannot
// hold, as the Node SDK's (libs/executor-sdk/src/engine-round.ts): the first engine is sent the
// request; the next one is when it answers without settling it, or when it has not answered
// within `rerouteAfter` — that engine is then set aside (onSlow) and keeps its request (a late
// answer that settles the round still counts). It returns the first answer that settles the
// round, or nil once every engine has answered without one, and every answer it got. Waiting
// out each engine's full RequestTimeout one after the other kept a run's final callback from a
// live engine for 10 s whenever the engine listed first hung (black-holed, frozen).
// `send` answers on its channel once; an answer that comes after the round is over is dropped.
func engineRound(urls []string, send func(url string) <-chan answer, settles func(answer) bool, rerouteAfter time.Duration, onSlow func(url string)) (*engineAnswer, []engineAnswer) {
	results := make(chan engineAnswer, len(urls)) // room for every answer: a late one never blocks
	var answers []engineAnswer
	next, outstanding := 0, 0
	timer := time.NewTimer(rerouteAfter)
	defer timer.Stop()
	var slow <-chan time.Time // the reroute timer of the engine tried last, nil when none runs
	tryNext := func() {
		if !timer.Stop() {
			select {
			case <-timer.C:
			default:
			}
		}
		slow = nil
		if next >= len(urls) {
			return
		}
		url := urls[next]
		next++
		outstanding++
		ch := send(url)
		go func() { results <- engineAnswer{url, <-ch} }()
		timer.Reset(rerouteAfter)
		slow = timer.C
	}
	tryNext()
	for outstanding > 0 {
		select {
		case a := <-results:
			outstanding--
			answers = append(answers, a)
			if settles(a.answer) {
				return &a, answers
			}
			tryNext()
		case <-slow:
			slow = nil
			onSlow(urls[next-1])
			tryNext()
		}
	}
	return nil, answers
}
