package ab

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
)

// git runs git in dir and returns its trimmed standard output.
func git(ctx context.Context, dir string, args ...string) (string, error) {
	cmd := exec.CommandContext(ctx, "git", args...)
	cmd.Dir = dir
	var stderr strings.Builder
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		var ee *exec.Error
		if errors.As(err, &ee) {
			return "", fmt.Errorf("%w: %w", ErrGit, err)
		}
		return "", fmt.Errorf("%w: git %s: %w: %s", ErrGit, strings.Join(args, " "), err, strings.TrimSpace(stderr.String()))
	}
	return strings.TrimSpace(string(out)), nil
}

// A Worktree is a temporary checkout of one commit of the repository that
// holds a module, made with "git worktree add --detach".
type Worktree struct {
	// Ref is the ref asked for, Commit the commit it named.
	Ref, Commit string
	// ModuleDir is the module's root inside the checkout.
	ModuleDir string

	repo, tmp, dir string
}

// AddWorktree checks out ref of the git repository that holds moduleDir
// into a new temporary directory. The working tree of moduleDir is left
// as it is. A ref that names no commit is an error matching ErrBadRef.
// Remove deletes the checkout.
func AddWorktree(ctx context.Context, moduleDir, ref string) (*Worktree, error) {
	top, err := git(ctx, moduleDir, "rev-parse", "--show-toplevel")
	if err != nil {
		return nil, fmt.Errorf("%s is not in a git repository: %w", moduleDir, err)
	}
	if strings.HasPrefix(ref, "-") || ref == "" {
		return nil, fmt.Errorf("%w %q: not a ref", ErrBadRef, ref)
	}
	commit, err := git(ctx, top, "rev-parse", "--verify", "--quiet", "--end-of-options", ref+"^{commit}")
	if err != nil {
		return nil, fmt.Errorf("%w %q: no such commit in %s", ErrBadRef, ref, top)
	}
	absMod, err := filepath.Abs(moduleDir)
	if err != nil {
		return nil, err
	}
	rel, err := filepath.Rel(resolve(top), resolve(absMod))
	if err != nil || strings.HasPrefix(rel, "..") {
		return nil, fmt.Errorf("module %s is outside its repository %s", moduleDir, top)
	}
	tmp, err := os.MkdirTemp("", "kcbench-base-")
	if err != nil {
		return nil, err
	}
	dir := filepath.Join(tmp, "src")
	if _, err := git(ctx, top, "worktree", "add", "--detach", "--quiet", dir, commit); err != nil {
		os.RemoveAll(tmp)
		return nil, err
	}
	return &Worktree{Ref: ref, Commit: commit, ModuleDir: filepath.Join(dir, rel), repo: top, tmp: tmp, dir: dir}, nil
}

// Changed lists the files under dir (relative to the module root) that
// differ between the worktree's commit and the working tree of the module
// it was made from: tracked files changed since the commit, committed or
// not, and untracked files that git does not ignore. The names are
// relative to the repository's top.
func (w *Worktree) Changed(ctx context.Context, moduleDir, dir string) ([]string, error) {
	path := filepath.Join(moduleDir, dir)
	diff, err := git(ctx, w.repo, "diff", "--name-only", w.Commit, "--", path)
	if err != nil {
		return nil, err
	}
	untracked, err := git(ctx, w.repo, "ls-files", "--others", "--exclude-standard", "--", path)
	if err != nil {
		return nil, err
	}
	var out []string
	for _, l := range strings.Split(diff+"\n"+untracked, "\n") {
		if l != "" {
			out = append(out, l)
		}
	}
	return out, nil
}

// resolve returns p with its symbolic links evaluated, or p if that fails.
func resolve(p string) string {
	if r, err := filepath.EvalSymlinks(p); err == nil {
		return r
	}
	return p
}

// Remove deletes the checkout and its worktree entry.
func (w *Worktree) Remove() error {
	_, err := git(context.Background(), w.repo, "worktree", "remove", "--force", w.dir)
	if rerr := os.RemoveAll(w.tmp); err == nil {
		err = rerr
	}
	if _, perr := git(context.Background(), w.repo, "worktree", "prune"); err == nil {
		err = perr
	}
	return err
}

// ModuleRoot returns the root of the module that holds dir: the nearest
// directory upwards with a go.mod.
func ModuleRoot(dir string) (string, error) {
	d, err := filepath.Abs(dir)
	if err != nil {
		return "", err
	}
	for {
		if _, err := os.Stat(filepath.Join(d, "go.mod")); err == nil {
			return d, nil
		}
		parent := filepath.Dir(d)
		if parent == d {
			return "", fmt.Errorf("no go.mod in %s or above", dir)
		}
		d = parent
	}
}
