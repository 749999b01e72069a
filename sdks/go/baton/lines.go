package baton

// taskLines holds the runs that wait in line for a worker: one line per task, the lines taking
// the free workers in turn, each line first come first. One task's thousand runs queued here cost
// another task's run one run's wait, not the thousand's — as in the Node SDK's pool
// (libs/executor-sdk/src/pool.ts), where one line made a tenant's other task wait 42 s behind its
// bulk task's queue (bench task-backlog --bulk-ms). Guarded by the executor's lock.
type taskLines struct {
	// The tasks with runs in line, in their turn's order: the first one's first run goes next.
	turns  []int64
	byTask map[int64][]*job
	n      int
}

func newTaskLines() taskLines { return taskLines{byTask: map[int64][]*job{}} }

// len: the runs in line.
func (l *taskLines) len() int { return l.n }

// push puts j at the end of its task's line; a task new to the line takes its turn after those there.
func (l *taskLines) push(j *job) {
	task := j.req.TaskID
	line, ok := l.byTask[task]
	if !ok {
		l.turns = append(l.turns, task)
	}
	l.byTask[task] = append(line, j)
	l.n++
}

// pop takes the first run of the task whose turn it is (nil when none waits); that task goes to
// the back of the turns if it has more.
func (l *taskLines) pop() *job {
	if l.n == 0 {
		return nil
	}
	task := l.turns[0]
	l.turns = l.turns[1:]
	line := l.byTask[task]
	j := line[0]
	line[0] = nil // the job is not held by the slice's backing array once it has run
	if len(line) == 1 {
		delete(l.byTask, task)
	} else {
		l.byTask[task] = line[1:]
		l.turns = append(l.turns, task)
	}
	l.n--
	return j
}

// remove takes j out of its line; false when it is not in line.
func (l *taskLines) remove(j *job) bool {
	task := j.req.TaskID
	line := l.byTask[task]
	for i, q := range line {
		if q != j {
			continue
		}
		l.n--
		if len(line) > 1 {
			l.byTask[task] = append(line[:i:i], line[i+1:]...)
			return true
		}
		delete(l.byTask, task)
		for k, t := range l.turns {
			if t == task {
				l.turns = append(l.turns[:k:k], l.turns[k+1:]...)
				break
			}
		}
		return true
	}
	return false
}

// drain empties the lines and returns their runs, line by line.
func (l *taskLines) drain() []*job {
	var jobs []*job
	for _, task := range l.turns {
		jobs = append(jobs, l.byTask[task]...)
	}
	*l = newTaskLines()
	return jobs
}
