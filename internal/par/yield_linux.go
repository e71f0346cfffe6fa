package par

import "syscall"

// osYield gives the core to another runnable thread, if any (Linux's
// sched_yield): a spinning helper whose core is shared with more threads
// than cores lets them run, the caller among them.
func osYield() { syscall.Syscall(syscall.SYS_SCHED_YIELD, 0, 0, 0) }
