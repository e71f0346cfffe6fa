module github.com/hpgraph/hpgraph

go 1.24.0

require (
	github.com/mumax/3 v0.0.0-20261020084628-54efa12420b2
	github.com/spf13/cobra v1.10.2
	github.com/spf13/pflag v1.0.9
	gonum.org/v1/gonum v0.17.0
)

require github.com/inconshreveable/mousetrap v1.1.0 // indirect
