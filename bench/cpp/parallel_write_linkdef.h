// rootcling selection for bench/cpp/parallel_write_types.h.
#ifdef __ROOTCLING__
#pragma link off all globals;
#pragma link off all classes;
#pragma link off all functions;
#pragma link C++ class Vec3+;
#pragma link C++ class Event+;
#pragma link C++ class std::vector<Event>+;
#pragma link C++ class std::vector<std::vector<int> >+;
#endif
