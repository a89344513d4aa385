package vcore

import (
	"context"
	"testing"
	"time"

	"github.com/kcbench/kcbench/internal/testutil"
	"github.com/kcbench/kcbench/runtimes/kc"
)

// TestSpawnDropsStale checks that a full inbox of stale entries (children
// their parent awaited, so ran inline, while it held the only core) makes
// room for the next task instead of sending it to the global queue, and
// that the dropped entries still count as ended: Close returns. With
// goroutine registry keys the children go through the next slot instead
// (TestNextSlotKeepsAwaitedChildren), so this reaches the inbox only where
// regByG is false; TestDropStale covers dropStale on every architecture.
// Through the next slot the global queue may get a child by design: one
// that sat in the slot for two sysmon ticks (its parent's thread
// descheduled between the Launch and the await, on a loaded machine) goes
// there (moveStaleNext), and the parent then runs it inline, leaving its
// entry stale. So only the inbox path is held to an empty global queue.
func TestSpawnDropsStale(t *testing.T) {
	ex, err := New(Workers(1))
	if err != nil {
		t.Fatal(err)
	}
	rt := kc.New(ex)
	overflowed := false
	err = rt.Run(context.Background(), func(j *kc.Job) error {
		return awaitOnes(t, j, 4*ex.cfg.inboxSize, func() {
			overflowed = overflowed || !ex.global.empty()
		})
	})
	if err != nil {
		t.Fatal(err)
	}
	if overflowed && !regByG {
		t.Errorf("%d awaited children on one busy core: the global queue got some; want every one in the inbox", 4*ex.cfg.inboxSize)
	}
	testutil.Watchdog(t, 10*time.Second, func() { rt.Close() })
	if a := ex.Stats().Active; a != 0 {
		t.Errorf("Stats.Active after Close: got %d; want 0", a)
	}
}

// TestDropStale fills a core's inbox with Finished tasks, counted active
// as Spawn counts them, then checks that dropStale empties it, ending each
// for active_tasks, and sends nothing to the global queue. It does so
// after Close, with no owner left: a live owner could pop an entry too and
// end it only after the count is read, and Run returns before the owner
// has ended the root task and the last child's stale next-slot entry, so
// before Close the count moves under the test.
func TestDropStale(t *testing.T) {
	ex, err := New(Workers(1))
	if err != nil {
		t.Fatal(err)
	}
	rt := kc.New(ex)
	var done []*kc.Task
	err = rt.Run(context.Background(), func(j *kc.Job) error {
		for range staleScan {
			c, err := j.Launch(func(*kc.Job) error { return nil })
			if err != nil {
				return err
			}
			if err := c.Join(j); err != nil {
				return err
			}
			done = append(done, (*kc.Task)(c))
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	testutil.Watchdog(t, 10*time.Second, func() { rt.Close() })
	c := &ex.cores[0]
	base := ex.active.Load()
	for _, task := range done {
		ex.active.Add(1)
		if !c.inbox.push(task) {
			t.Fatalf("inbox of %d full after fewer than %d pushes", ex.cfg.inboxSize, staleScan)
		}
	}
	ex.dropStale(c)
	if !c.inbox.empty() || !ex.global.empty() {
		t.Errorf("after dropStale: inbox empty %v, global empty %v; want both", c.inbox.empty(), ex.global.empty())
	}
	if a := ex.active.Load(); a != base {
		t.Errorf("active after dropStale: got %d; want %d (each dropped entry ended)", a, base)
	}
}

// awaitOnes launches n children returning 1 from j, awaiting each at once,
// and calls after (if not nil) after each await.
func awaitOnes(t *testing.T, j *kc.Job, n int, after func()) error {
	one := func(*kc.Job) (int, error) { return 1, nil }
	for range n {
		d, err := kc.Async(j, one)
		if err != nil {
			return err
		}
		if v, err := d.Await(j); err != nil || v != 1 {
			t.Errorf("await: got %d, %v; want 1, nil", v, err)
			return nil
		}
		if after != nil {
			after()
		}
	}
	return nil
}
