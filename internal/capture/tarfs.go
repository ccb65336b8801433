package capture

import (
	"archive/tar"
	"bufio"
	"bytes"
	"compress/bzip2"
	"compress/gzip"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path"
	"slices"
	"strings"
	"time"
)

// Limits on what an archive may hold, so that a hostile or corrupt archive
// cannot exhaust memory. A sysfs capture is a few megabytes at most.
const (
	maxArchiveBytes   = 256 << 20
	maxArchiveEntries = 1 << 20
	maxLinkHops       = 40 // as Linux's MAXSYMLINKS
)

// openArchive reads the tar archive at name into memory (see Open).
func openArchive(name string) (fs.FS, error) {
	f, err := os.Open(name)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	fsys, err := readArchive(f)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	return fsys, nil
}

// readArchive reads a tar archive, compressed with bzip2 or gzip (detected
// from its first bytes) or not at all, into an in-memory fs.FS. Symbolic
// links inside the archive are followed when a path is opened, relative to
// the link's directory (an absolute target is taken from the archive's
// root), and a chain of more than 40 links is an error, so a link to "."
// (which sysfs captures contain) cannot loop. If the archive's root holds
// neither "sys" nor "proc" but a single directory, that directory becomes
// the root. Hard links become copies; devices, FIFOs and the like are
// skipped.
func readArchive(r io.Reader) (fs.FS, error) {
	br := bufio.NewReader(r)
	magic, _ := br.Peek(3)
	var src io.Reader = br
	switch {
	case bytes.HasPrefix(magic, []byte("BZh")):
		src = bzip2.NewReader(br)
	case bytes.HasPrefix(magic, []byte{0x1f, 0x8b}):
		gz, err := gzip.NewReader(br)
		if err != nil {
			return nil, err
		}
		defer gz.Close()
		src = gz
	}
	a := &archiveFS{root: newDir("")}
	tr := tar.NewReader(src)
	total, n := int64(0), 0
	type hardLink struct{ name, target string }
	var hard []hardLink
	for {
		h, err := tr.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			return nil, err
		}
		if n++; n > maxArchiveEntries {
			return nil, errors.New("capture: too many entries in archive")
		}
		name, ok := archivePath(h.Name)
		if !ok {
			continue
		}
		switch h.Typeflag {
		case tar.TypeDir:
			if d := a.mkdirAll(name); d != nil {
				d.mtime = h.ModTime
			}
		case tar.TypeReg:
			if total += h.Size; h.Size < 0 || total > maxArchiveBytes {
				return nil, errors.New("capture: archive too large")
			}
			data, err := io.ReadAll(io.LimitReader(tr, h.Size))
			if err != nil {
				return nil, err
			}
			a.add(name, &entry{mode: fs.FileMode(h.Mode) & fs.ModePerm, data: data, mtime: h.ModTime})
		case tar.TypeSymlink:
			a.add(name, &entry{mode: fs.ModeSymlink | 0o777, link: h.Linkname, mtime: h.ModTime})
		case tar.TypeLink:
			if t, ok := archivePath(h.Linkname); ok {
				hard = append(hard, hardLink{name, t})
			}
		}
	}
	for _, l := range hard {
		if e, err := a.lookup(l.target, false); err == nil && e.mode.IsRegular() {
			a.add(l.name, &entry{mode: e.mode, data: e.data, mtime: e.mtime})
		}
	}
	for range 2 { // enter a lone top directory
		if a.root.kids["sys"] != nil || a.root.kids["proc"] != nil || len(a.root.kids) != 1 {
			break
		}
		for _, e := range a.root.kids {
			if e.mode.IsDir() {
				a.root = e
			}
		}
	}
	return a, nil
}

// archivePath cleans a tar entry name into an fs.FS path.
func archivePath(name string) (string, bool) {
	name = path.Clean("/" + name)[1:]
	if name == "" || !fs.ValidPath(name) {
		return "", false
	}
	return name, true
}

// entry is a file, directory or symbolic link of an archiveFS.
type entry struct {
	name  string
	mode  fs.FileMode
	data  []byte
	link  string
	mtime time.Time
	kids  map[string]*entry
}

func newDir(name string) *entry {
	return &entry{name: name, mode: fs.ModeDir | 0o755, kids: map[string]*entry{}}
}

// archiveFS is an in-memory tree read from a tar archive. It is never
// modified after readArchive returns.
type archiveFS struct {
	root *entry
}

// mkdirAll creates the directory name and its parents, and returns it (nil
// where a non-directory is in the way).
func (a *archiveFS) mkdirAll(name string) *entry {
	d := a.root
	for p := range strings.SplitSeq(name, "/") {
		k := d.kids[p]
		if k == nil {
			k = newDir(p)
			d.kids[p] = k
		}
		if !k.mode.IsDir() {
			return nil
		}
		d = k
	}
	return d
}

// add places e at name, creating parent directories. An existing entry is
// replaced, except a directory.
func (a *archiveFS) add(name string, e *entry) {
	dir, base := path.Split(name)
	d := a.root
	if dir != "" {
		d = a.mkdirAll(strings.TrimSuffix(dir, "/"))
	}
	if d == nil {
		return
	}
	if old := d.kids[base]; old != nil && old.mode.IsDir() {
		return
	}
	e.name = base
	d.kids[base] = e
}

// lookup resolves name, following symbolic links in every component and,
// if followLast, in the last one.
func (a *archiveFS) lookup(name string, followLast bool) (*entry, error) {
	if !fs.ValidPath(name) {
		return nil, fs.ErrInvalid
	}
	var parts []string
	if name != "." {
		parts = strings.Split(name, "/")
	}
	hops := 0
	cur, at := a.root, []string{}
	for i := 0; i < len(parts); i++ {
		if !cur.mode.IsDir() {
			return nil, fs.ErrNotExist
		}
		child := cur.kids[parts[i]]
		if child == nil {
			return nil, fs.ErrNotExist
		}
		last := i == len(parts)-1
		if child.mode&fs.ModeSymlink == 0 || (last && !followLast) {
			cur, at = child, append(at, parts[i])
			continue
		}
		if hops++; hops > maxLinkHops {
			return nil, errors.New("capture: too many levels of symbolic links")
		}
		var next []string
		if !strings.HasPrefix(child.link, "/") {
			next = slices.Clone(at)
		}
		for p := range strings.SplitSeq(child.link, "/") {
			switch p {
			case "", ".":
			case "..":
				if len(next) > 0 {
					next = next[:len(next)-1]
				}
			default:
				next = append(next, p)
			}
		}
		parts = append(next, parts[i+1:]...)
		cur, at, i = a.root, at[:0:0], -1
	}
	return cur, nil
}

func (a *archiveFS) pathErr(op, name string, err error) error {
	return &fs.PathError{Op: op, Path: name, Err: err}
}

// Open implements fs.FS.
func (a *archiveFS) Open(name string) (fs.File, error) {
	e, err := a.lookup(name, true)
	if err != nil {
		return nil, a.pathErr("open", name, err)
	}
	f := &archiveFile{info: fileInfo{e, path.Base(name)}}
	if e.mode.IsDir() {
		f.dir = a.dirEntries(e)
	} else {
		f.r = bytes.NewReader(e.data)
	}
	return f, nil
}

// ReadFile implements fs.ReadFileFS.
func (a *archiveFS) ReadFile(name string) ([]byte, error) {
	e, err := a.lookup(name, true)
	if err != nil {
		return nil, a.pathErr("readfile", name, err)
	}
	if e.mode.IsDir() {
		return nil, a.pathErr("readfile", name, errors.New("is a directory"))
	}
	return slices.Clone(e.data), nil
}

// ReadDir implements fs.ReadDirFS.
func (a *archiveFS) ReadDir(name string) ([]fs.DirEntry, error) {
	e, err := a.lookup(name, true)
	if err != nil {
		return nil, a.pathErr("readdir", name, err)
	}
	if !e.mode.IsDir() {
		return nil, a.pathErr("readdir", name, errors.New("not a directory"))
	}
	return a.dirEntries(e), nil
}

// Stat implements fs.StatFS.
func (a *archiveFS) Stat(name string) (fs.FileInfo, error) {
	e, err := a.lookup(name, true)
	if err != nil {
		return nil, a.pathErr("stat", name, err)
	}
	return fileInfo{e, path.Base(name)}, nil
}

// Lstat implements fs.ReadLinkFS.
func (a *archiveFS) Lstat(name string) (fs.FileInfo, error) {
	e, err := a.lookup(name, false)
	if err != nil {
		return nil, a.pathErr("lstat", name, err)
	}
	return fileInfo{e, path.Base(name)}, nil
}

// ReadLink implements fs.ReadLinkFS.
func (a *archiveFS) ReadLink(name string) (string, error) {
	e, err := a.lookup(name, false)
	if err != nil {
		return "", a.pathErr("readlink", name, err)
	}
	if e.mode&fs.ModeSymlink == 0 {
		return "", a.pathErr("readlink", name, fs.ErrInvalid)
	}
	return e.link, nil
}

func (a *archiveFS) dirEntries(e *entry) []fs.DirEntry {
	out := make([]fs.DirEntry, 0, len(e.kids))
	for n, k := range e.kids {
		out = append(out, fs.FileInfoToDirEntry(fileInfo{k, n}))
	}
	slices.SortFunc(out, func(x, y fs.DirEntry) int { return strings.Compare(x.Name(), y.Name()) })
	return out
}

// fileInfo describes an entry under the name it was reached by.
type fileInfo struct {
	e    *entry
	name string
}

func (i fileInfo) Name() string {
	if i.name == "." || i.name == "/" {
		return "."
	}
	return i.name
}
func (i fileInfo) Size() int64        { return int64(len(i.e.data)) }
func (i fileInfo) Mode() fs.FileMode  { return i.e.mode }
func (i fileInfo) ModTime() time.Time { return i.e.mtime }
func (i fileInfo) IsDir() bool        { return i.e.mode.IsDir() }
func (i fileInfo) Sys() any           { return nil }

// archiveFile is an open file or directory of an archiveFS.
type archiveFile struct {
	info fileInfo
	r    *bytes.Reader // regular files
	dir  []fs.DirEntry // directories: the entries not yet returned
}

func (f *archiveFile) Stat() (fs.FileInfo, error) { return f.info, nil }
func (f *archiveFile) Close() error               { return nil }

func (f *archiveFile) Read(p []byte) (int, error) {
	if f.r == nil {
		return 0, &fs.PathError{Op: "read", Path: f.info.name, Err: errors.New("is a directory")}
	}
	return f.r.Read(p)
}

// ReadDir implements fs.ReadDirFile.
func (f *archiveFile) ReadDir(n int) ([]fs.DirEntry, error) {
	if f.r != nil {
		return nil, &fs.PathError{Op: "readdir", Path: f.info.name, Err: errors.New("not a directory")}
	}
	if n <= 0 {
		out := f.dir
		f.dir = nil
		return out, nil
	}
	if len(f.dir) == 0 {
		return nil, io.EOF
	}
	n = min(n, len(f.dir))
	out := f.dir[:n:n]
	f.dir = f.dir[n:]
	return out, nil
}
