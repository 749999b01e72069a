// A Baton executor with one handler: BATON_TENANT=… BATON_EXECUTOR_SECRET=… go run ./examples/hello
package main

import (
	"context"

	"github.com/baton-dev/baton/sdks/go/baton"
)

func main() {
	baton.Main(baton.Handle("hello", func(ctx context.Context, run *baton.Run) (any, error) {
		var p struct{ Name string }
		if err := run.Bind(&p); err != nil {
			return nil, err
		}
		run.Infof("greeting %s", p.Name)
		return map[string]string{"greeting": "hello " + p.Name}, nil
	}))
}
