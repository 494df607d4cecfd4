//go:build !unix

package main

import "time"

func raiseFileLimit() fileLimit { return fileLimit{Err: "not supported on this system"} }

func selfCPU() (time.Duration, bool) { return 0, false }
