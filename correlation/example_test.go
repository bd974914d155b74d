package correlation_test

import (
	"errors"
	"fmt"
	"time"

	"github.com/omcp/toolfailure/correlation"
)

func Example() {
	id, err := correlation.New(time.Now())
	if err != nil {
		panic(err)
	}
	s := id.String() // e.g. tf_01JDQ7Z5Q8R3M2V9X4K6N0T1BCV, shown to the user
	back, err := correlation.Parse(s)
	fmt.Println(len(s), back == id, err)
	// Output: 30 true <nil>
}

func ExampleParseLoose() {
	// What a support engineer might paste from a chat message.
	id, err := correlation.ParseLoose("  TF-0000000000-0000000000-0000000  ")
	fmt.Println(id.String(), err)
	fmt.Println(id.Time().Format(time.RFC3339))
	// Output:
	// tf_000000000000000000000000000 <nil>
	// 1970-01-01T00:00:00Z
}

func ExampleParse_typo() {
	_, err := correlation.Parse("tf_000000000000000000000000001")
	fmt.Println(errors.Is(err, correlation.ErrChecksum))
	// Output: true
}
