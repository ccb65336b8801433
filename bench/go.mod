module github.com/parloop/parloop/bench

go 1.26.0

replace github.com/parloop/parloop => ../

require (
	github.com/alitto/pond/v2 v2.7.1
	github.com/destel/rill v0.7.0
	github.com/panjf2000/ants/v2 v2.12.1
	github.com/parloop/parloop v0.0.0-00010101000000-000000000000
	github.com/sourcegraph/conc v0.3.0
	golang.org/x/exp v0.0.0-20261113113407-e3970619a1a4
	golang.org/x/sync v0.25.0
	gonum.org/v1/plot v0.17.0
)

require (
	codeberg.org/go-fonts/liberation v0.5.0 // indirect
	codeberg.org/go-latex/latex v0.2.0 // indirect
	codeberg.org/go-pdf/fpdf v0.11.1 // indirect
	git.sr.ht/~sbinet/gg v0.7.0 // indirect
	github.com/ajstarks/svgo v0.0.0-20211024235047-1546f124cd8b // indirect
	github.com/exascience/pargo v1.1.0 // indirect
	github.com/golang/freetype v0.0.0-20170609003504-e2365dfdc4a0 // indirect
	github.com/jfcg/sixb v1.4.1 // indirect
	github.com/jfcg/sorty/v2 v2.1.1 // indirect
	go.uber.org/atomic v1.7.0 // indirect
	go.uber.org/multierr v1.9.0 // indirect
	golang.org/x/image v0.30.0 // indirect
	golang.org/x/sys v0.50.0 // indirect
	golang.org/x/text v0.28.0 // indirect
)
