// Package capture opens a captured machine, the files of its "/sys" and
// "/proc" trees saved in a directory or a tar archive, as an [fs.FS] for
// par's captured-machine simulation (internal/sim):
//
//	fsys, err := capture.Open("64amd64-4s2n4ca2co.tar.gz")
//	if err != nil { ... }
//	m, err := sim.ReadMachine(fsys)
//
// hwloc's test suite keeps its Linux captures this way (tests/hwloc/linux in
// hwloc's source tree); a few of them are in this repository's
// par/internal/topology/testdata. A capture lets a program print, and tests
// check, the placement of a pool on a machine other than the one it runs on.
//
// It is a package of its own, not part of par, so that a program importing
// par links no archive or decompression code (archive/tar, compress/bzip2,
// compress/gzip): only a program that reads captures pays for them.
package capture

import (
	"io/fs"
	"os"
	"path/filepath"
)

// Open returns the captured machine at path, as an fs.FS whose root holds
// the machine's "sys" and "proc" directories.
//
// If path is a directory, the result reads it in place (os.DirFS). If it is
// a file, it must be a tar archive, compressed with bzip2 (.tar.bz2) or gzip
// (.tar.gz, .tgz) or not at all (.tar); the compression is told from the
// file's first bytes, not its name. The archive is read into memory at once
// (at most 256 MiB and 2^20 entries) and the file is closed. Symbolic links
// inside it are followed when a path is opened, relative to the link's
// directory, and an absolute target starts at the capture's root; a link
// never leads outside the capture, and a chain of more than 40 links is an
// error (sysfs captures hold links to "."). Hard links become copies;
// devices, FIFOs and the like are left out. The result implements
// fs.ReadFileFS, fs.ReadDirFS, fs.StatFS and fs.ReadLinkFS and is safe for
// concurrent use.
//
// Where the root holds neither "sys" nor "proc" but a single directory (the
// layout of hwloc's captures: NAME/sys and NAME/proc), that directory
// becomes the root, and so on for two levels.
func Open(path string) (fs.FS, error) {
	st, err := os.Stat(path)
	if err != nil {
		return nil, err
	}
	if !st.IsDir() {
		return openArchive(path)
	}
	dir := path
	for range 2 {
		if hasMachineRoot(os.DirFS(dir)) {
			break
		}
		ents, err := os.ReadDir(dir)
		if err != nil || len(ents) != 1 || !ents[0].IsDir() {
			break
		}
		dir = filepath.Join(dir, ents[0].Name())
	}
	return os.DirFS(dir), nil
}

// hasMachineRoot reports whether fsys has a "sys" or "proc" directory at
// its root.
func hasMachineRoot(fsys fs.FS) bool {
	for _, n := range []string{"sys", "proc"} {
		if st, err := fs.Stat(fsys, n); err == nil && st.IsDir() {
			return true
		}
	}
	return false
}
