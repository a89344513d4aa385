package kc

// Worker batches the releases of the jobs one goroutine runs: when several
// children of one parent end in a row on it (a worker draining a batch of
// stolen tasks), the parent's hold count is changed once, by Flush or by
// the next task of another parent, instead of once per child, which keeps
// the parent's state word from moving between cores on every child. The
// zero Worker is ready to use. A Worker belongs to one goroutine at a time.
//
// The batch delays only the parent's own end (and WaitAll on it): every
// child in it is already terminal. RunOn flushes before a task that is not
// a child of the batched parent, because that task might wait for the
// parent; a child of it cannot without waiting for itself.
//
// The executor's obligation: call Flush before the goroutine stops running
// tasks, that is before it waits for work, goes idle or exits, also when a
// body ends it with runtime.Goexit (flush in a deferred call). A batch left
// unflushed delays its parent's end until the Worker runs another task,
// possibly forever. A body that parks needs no Flush: the batch then holds
// at most releases of the parked task's own parent, which cannot end
// before that task does. A goroutine that stops running tasks to resume
// another one in the middle of its task (a woken coroutine) may Pass its
// batch to that one's Worker instead of flushing it.
type Worker struct {
	owed *Job   // the parent whose holds the batch drops; nil if none
	n    uint64 // how many
	run  *Job   // the job whose body RunOn runs on the Worker, parked in it or not; nil between tasks
}

// Pass hands w's batch to dst, the Worker of a goroutine the caller is
// about to resume in the middle of a task (its body parked or yielded),
// and which the caller owns (it took that goroutine from a ready queue), if
// that task's job is an attached child of the parent w holds releases for
// and dst holds none of another parent's: the parent cannot end before
// that job does, so the batch delays no one, as for a body that parks (see
// Worker), and dst's goroutine drops it later with its own. Otherwise it
// flushes w. Either way w holds nothing when it returns. When a wake
// resumes many children of one parent in a row on one goroutine (the end
// of a cancel walk), the parent's hold count is then changed once per
// batch instead of once per child.
func (w *Worker) Pass(dst *Worker) {
	if w.owed == nil {
		return
	}
	if r := dst.run; r != nil && r.parent == w.owed && r.attached() && (dst.owed == nil || dst.owed == w.owed) {
		dst.owed = w.owed
		dst.n += w.n
		w.owed, w.n = nil, 0
		return
	}
	w.Flush()
}

// owe adds the release of one hold on p to the batch.
func (w *Worker) owe(p *Job) {
	if w.owed == p {
		w.n++
		return
	}
	w.Flush()
	w.owed, w.n = p, 1
}

// Flush drops the batched holds. It may finish the parent, and through it
// its ancestors; should one of their releases be batched on w again, Flush
// drops that too, so w holds nothing when it returns.
func (w *Worker) Flush() {
	for w.owed != nil {
		p, n := w.owed, w.n
		w.owed, w.n = nil, 0
		p.release(n, w)
	}
}
