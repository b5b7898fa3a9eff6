#include "vector"
#ifdef __CLING__ 
#pragma link C++ nestedclasses;
#pragma link C++ nestedtypedefs;
#pragma link C++ class vector<vector<double> >+;
#endif
