module github.com/parloop/parloop

go 1.26.0

require (
	go.uber.org/goleak v1.3.0
	golang.org/x/sys v0.50.0
)

require (
	github.com/google/pprof v0.0.0-20261105003125-4bf881d7fb0b
	github.com/schollz/progressbar/v3 v3.19.1
	golang.org/x/exp v0.0.0-20261113113407-e3970619a1a4
	golang.org/x/term v0.44.0
)

require (
	github.com/mitchellh/colorstring v0.0.0-20190213212951-d06e56a500db // indirect
	github.com/rivo/uniseg v0.4.7 // indirect
)
