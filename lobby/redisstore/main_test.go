package redisstore_test

import (
	"flag"
	"fmt"
	"testing"

	"klondike/lobby/redisstore/redistest"
)

// shortParallel is how many tests run at once with -short, when -parallel
// is not given: more than there are CPUs, since these tests mostly wait, on
// redis-server and on keys' TTLs.
const shortParallel = 8

// TestMain stops the cluster the tests share (redistest.Shared) after them,
// and with -short runs shortParallel tests at once unless -parallel says
// otherwise.
func TestMain(m *testing.M) {
	flag.Parse()
	given := false
	flag.Visit(func(f *flag.Flag) { given = given || f.Name == "test.parallel" })
	if testing.Short() && !given {
		if err := flag.Set("test.parallel", fmt.Sprint(shortParallel)); err != nil {
			panic(err)
		}
	}
	redistest.Main(m)
}
