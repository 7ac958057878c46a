/* tsr_cmocka_ext.h: assertions the cmocka unit suites share (include after <cmocka.h>). */
#ifndef TSR_CMOCKA_EXT_H
#define TSR_CMOCKA_EXT_H

#include <string.h>

/* cmocka 1.1.5 prints integers in hex; this prints the expression and both values in decimal. */
#define assert_i64(actual, expected)                                                      \
  do {                                                                                    \
    const long long actual_ = (long long)(actual);                                        \
    const long long expected_ = (long long)(expected);                                    \
    if (actual_ != expected_) {                                                           \
      fail_msg("%s = %lld, expected %lld", #actual, actual_, expected_);                  \
    }                                                                                     \
  } while (0)

/* err is one line (no newline) that holds `has`. */
static inline void assert_one_line(const char *err, const char *has) {
  if (err[0] == '\0' || strchr(err, '\n') != NULL || strstr(err, has) == NULL) {
    fail_msg("message '%s' is not one line holding '%s'", err, has);
  }
}

#endif
