package model_test

import (
	"testing"

	"github.com/kcbench/kcbench/conformance/model"
)

func TestGenerateValid(t *testing.T) {
	for seed := range uint64(3000) {
		p, err := model.Generate(seed, model.Config{})
		if err != nil {
			t.Fatal(err)
		}
		if _, err := model.Model(p); err != nil {
			t.Fatalf("seed %d: %v\n%s", seed, err, p)
		}
	}
}
