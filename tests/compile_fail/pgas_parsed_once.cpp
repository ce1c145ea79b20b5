// Owns the precompiled pgas headers that the must-not-compile tests and their controls share
// (CMakeLists.txt); nothing of it is linked.
