//go:build unix

package main

import (
	"io"
	"io/fs"
	"syscall"
)

// rawFile is a file opened for reading with plain system calls. An
// os.File would also register each file with the runtime's network poller
// (which refuses regular files, at the cost of a system call per file) and
// set up its finalizer: a tenth of the cost of opening a small file.
type rawFile struct {
	fd   int
	path string
}

// openRaw opens path for reading.
func openRaw(path string) (rawFile, error) {
	for {
		fd, err := syscall.Open(path, syscall.O_RDONLY|syscall.O_CLOEXEC, 0)
		if err == syscall.EINTR {
			continue
		}
		if err != nil {
			return rawFile{}, &fs.PathError{Op: "open", Path: path, Err: err}
		}
		return rawFile{fd, path}, nil
	}
}

// Read reads into p, returning io.EOF at the end of the file.
func (f rawFile) Read(p []byte) (int, error) {
	for {
		n, err := syscall.Read(f.fd, p)
		switch {
		case err == syscall.EINTR:
			continue
		case err != nil:
			return 0, &fs.PathError{Op: "read", Path: f.path, Err: err}
		case n == 0 && len(p) > 0:
			return 0, io.EOF
		}
		return n, nil
	}
}

// Close closes the file.
func (f rawFile) Close() error { return syscall.Close(f.fd) }
