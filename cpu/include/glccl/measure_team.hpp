#pragma once
// The threads that measure regions on the CPU (glccl/measure.hpp) are one
// team for the process, started by its first measurement. A program that
// knows it will measure may start them sooner, while it reads its inputs:
// the first measurement then finds them running.

namespace glccl {

// Starts the process's measuring team of `threads` workers (0: as many as
// the machine has; the calling thread is one of them) and returns after
// one thread start: the others start one another meanwhile. Nothing where
// the team has as many already, or while a measurement holds it.
void startMeasuringTeam(int threads);

}  // namespace glccl
