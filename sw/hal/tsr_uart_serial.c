/* tsr_uart_serial.c: UART link transport over a POSIX serial port (termios, raw 8N1). */
#define _DEFAULT_SOURCE /* cfmakeraw, B230400.. */

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <termios.h>
#include <time.h>
#include <unistd.h>

#include "tsr_uart.h"

/* USB-serial adapters deliver received bytes in packets after a latency timer
 * (16 ms by default on FTDI parts), so no timeout is shorter than this. */
#define SERIAL_FLOOR_MS 50u

typedef struct serial_ctx {
  int fd;
  uint32_t baud;
  struct termios saved;
  bool restore;
} serial_ctx_t;

static const struct {
  uint32_t baud;
  speed_t code;
} k_rates[] = {
    {9600u, B9600},       {19200u, B19200},     {38400u, B38400},     {57600u, B57600},
    {115200u, B115200},   {230400u, B230400},   {460800u, B460800},   {500000u, B500000},
    {576000u, B576000},   {921600u, B921600},   {1000000u, B1000000}, {1152000u, B1152000},
    {1500000u, B1500000}, {2000000u, B2000000}, {2500000u, B2500000}, {3000000u, B3000000},
    {3500000u, B3500000}, {4000000u, B4000000},
};

static tsr_status_t serial_send(void *ctx, const uint8_t *src, size_t n) {
  serial_ctx_t *c = ctx;
  while (n > 0u) {
    ssize_t w = write(c->fd, src, n);
    if (w < 0) {
      if (errno == EINTR) {
        continue;
      }
      if (errno == EAGAIN) {
        struct pollfd p = {.fd = c->fd, .events = POLLOUT, .revents = 0};
        (void)poll(&p, 1, 100);
        continue;
      }
      return TSR_IO;
    }
    src += w;
    n -= (size_t)w;
  }
  return TSR_OK;
}

static tsr_status_t serial_recv(void *ctx, uint8_t *dst, size_t n, uint32_t timeout_chars,
                                size_t *got) {
  serial_ctx_t *c = ctx;
  *got = 0u;
  uint64_t ms = ((uint64_t)timeout_chars * 10000u + c->baud - 1u) / c->baud + SERIAL_FLOOR_MS;
  struct pollfd p = {.fd = c->fd, .events = POLLIN, .revents = 0};
  for (;;) {
    int r = poll(&p, 1, ms > 60000u ? 60000 : (int)ms);
    if (r < 0) {
      if (errno == EINTR) {
        continue;
      }
      return TSR_IO;
    }
    if (r == 0) {
      return TSR_OK;
    }
    ssize_t k = read(c->fd, dst, n);
    if (k < 0) {
      if (errno == EINTR || errno == EAGAIN) {
        continue;
      }
      return TSR_IO;
    }
    if (k == 0) {
      return TSR_IO; /* the device went away (a USB adapter unplugged) */
    }
    *got = (size_t)k;
    return TSR_OK;
  }
}

static void serial_close(void *ctx) {
  serial_ctx_t *c = ctx;
  if (c == NULL) {
    return;
  }
  if (c->restore) {
    (void)tcsetattr(c->fd, TCSANOW, &c->saved);
  }
  close(c->fd);
  free(c);
}

static const tsr_uart_transport_ops_t k_serial_ops = {
    .name = "serial",
    .send = serial_send,
    .recv = serial_recv,
    .cycles = NULL,
    .close = serial_close,
};

tsr_status_t tsr_uart_serial_open(const char *path, uint32_t baud, tsr_uart_transport_t *t,
                                  char *err, size_t errlen) {
  char dummy[8];
  if (err == NULL || errlen == 0u) {
    err = dummy;
    errlen = sizeof dummy;
  }
  err[0] = '\0';
  if (path == NULL || t == NULL) {
    snprintf(err, errlen, "uart: bad arguments");
    return TSR_BAD_ARG;
  }
  speed_t code = 0;
  bool known = false;
  for (size_t i = 0; i < sizeof k_rates / sizeof k_rates[0]; i++) {
    if (k_rates[i].baud == baud) {
      code = k_rates[i].code;
      known = true;
    }
  }
  if (!known) {
    snprintf(err, errlen, "uart: %s: %u baud is not a standard rate (9600 .. 4000000, e.g. 115200)",
             path, baud);
    return TSR_BAD_ARG;
  }
  int fd = open(path, O_RDWR | O_NOCTTY | O_NONBLOCK | O_CLOEXEC);
  if (fd < 0) {
    snprintf(err, errlen, "uart: cannot open %s: %s%s", path, strerror(errno),
             errno == EACCES ? " (add yourself to the 'dialout' group)" : "");
    return TSR_NO_DEVICE;
  }
  serial_ctx_t *c = calloc(1, sizeof *c);
  if (c == NULL) {
    close(fd);
    snprintf(err, errlen, "uart: out of memory");
    return TSR_NO_MEMORY;
  }
  c->fd = fd;
  c->baud = baud;
  struct termios tio;
  if (tcgetattr(fd, &tio) != 0) {
    snprintf(err, errlen, "uart: %s is not a serial port: %s", path, strerror(errno));
    serial_close(c);
    return TSR_NO_DEVICE;
  }
  c->saved = tio;
  c->restore = true;
  cfmakeraw(&tio);
  tio.c_cflag &= ~(tcflag_t)(CSTOPB | PARENB | CRTSCTS | CSIZE);
  tio.c_cflag |= CS8 | CLOCAL | CREAD;
  tio.c_iflag &= ~(tcflag_t)(IXON | IXOFF | IXANY);
  tio.c_cc[VMIN] = 0;
  tio.c_cc[VTIME] = 0;
  if (cfsetispeed(&tio, code) != 0 || cfsetospeed(&tio, code) != 0 ||
      tcsetattr(fd, TCSANOW, &tio) != 0) {
    snprintf(err, errlen, "uart: cannot set %s to %u baud 8N1: %s", path, baud, strerror(errno));
    serial_close(c);
    return TSR_IO;
  }
  (void)tcflush(fd, TCIOFLUSH);
  t->ops = &k_serial_ops;
  t->ctx = c;
  return TSR_OK;
}
