// Command hello greets the world. It is the workspace of agentls's offline
// demo: the recorded session renames Hello to Greet.
package main

import "fmt"

// Hello returns a greeting.
func Hello(name string) string {
	return "Hello, " + name + "!"
}

func main() {
	fmt.Println(Hello("wörld 🌍"))
}
