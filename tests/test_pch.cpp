// The owner of the tests' precompiled header (tests/CMakeLists.txt, vcsim_test_pch): CMake builds a target's PCH only
// for a source that takes it. Nothing here.
