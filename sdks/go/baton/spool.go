package baton

import (
	"bufio"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"sync"
)

// spool is an append-only JSONL file of final callbacks no engine has taken yet: a line
// {"put":callback} when one is made, {"done":"runId:attempt"} when an engine takes it. On start
// the puts without a done are replayed; the file is emptied whenever nothing is pending.
type spool struct {
	mu   sync.Mutex
	file *os.File
}

type spoolLine struct {
	Put  *callback `json:"put,omitempty"`
	Done string    `json:"done,omitempty"`
}

func openSpool(path string) (*spool, []*callback, error) {
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return nil, nil, fmt.Errorf("spool %s: %w", path, err)
	}
	var replay []*callback
	if f, err := os.Open(path); err == nil {
		byKey := map[string]*callback{}
		var order []string
		scan := bufio.NewScanner(f)
		scan.Buffer(make([]byte, 64*1024), 16<<20)
		for scan.Scan() {
			var l spoolLine
			if json.Unmarshal(scan.Bytes(), &l) != nil {
				continue // a line cut by a crash
			}
			if l.Put != nil {
				k := runKey(l.Put.RunID, l.Put.Attempt)
				byKey[k], order = l.Put, append(order, k)
			} else if l.Done != "" {
				delete(byKey, l.Done)
			}
		}
		f.Close()
		for _, k := range order {
			if cb, ok := byKey[k]; ok {
				replay = append(replay, cb)
				delete(byKey, k)
			}
		}
	}
	f, err := os.OpenFile(path, os.O_CREATE|os.O_WRONLY|os.O_TRUNC, 0o644)
	if err != nil {
		return nil, nil, fmt.Errorf("spool %s: %w", path, err)
	}
	s := &spool{file: f}
	for _, cb := range replay {
		if err := s.write(spoolLine{Put: cb}); err != nil {
			return nil, nil, fmt.Errorf("spool %s: %w", path, err)
		}
	}
	return s, replay, nil
}

func (s *spool) write(l spoolLine) error {
	data, err := json.Marshal(l)
	if err != nil {
		return err
	}
	_, err = s.file.Write(append(data, '\n'))
	return err
}

func (s *spool) put(cb *callback, warn func(string, ...any)) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if err := s.write(spoolLine{Put: cb}); err != nil {
		warn("spool: %v (the callback is kept in memory only)", err)
	}
}

// done records a delivered callback; with nothing pending any more the file starts over.
func (s *spool) done(key string, pending int, warn func(string, ...any)) {
	s.mu.Lock()
	defer s.mu.Unlock()
	var err error
	if pending == 0 {
		if err = s.file.Truncate(0); err == nil {
			_, err = s.file.Seek(0, 0)
		}
	} else {
		err = s.write(spoolLine{Done: key})
	}
	if err != nil {
		warn("spool: %v", err)
	}
}

func (s *spool) close() { _ = s.file.Close() }
