/*
 * delayline: a constant one-way packet delay for kernels without netem.
 *
 * iptables sends packets to NFQUEUE <queue>; this program takes each packet's metadata
 * (copy-meta mode: the payload stays in the kernel) and issues its NF_ACCEPT verdict
 * <delay-ms> later. The delay is the same for every packet, so a FIFO in arrival order is
 * also the release order: no timer wheel, no reordering, no jitter.
 *
 * Usage: delayline --queue N --delay-ms D [--maxlen PACKETS]
 * Prints "delayline: ready queue=N delay_ms=D realtime=0|1" on stdout once bound (callers
 * wait for it before adding the NFQUEUE rule). SIGTERM/SIGINT: every held packet is accepted
 * at once, the queue is unbound and the program exits 0. Stats go to stderr on exit.
 *
 * It runs under SCHED_FIFO where allowed (realtime=1): at normal priority, on a busy machine,
 * up to half the verdicts left 1-50 ms late, a jittered delay that cut a WebRTC channel to a
 * quarter of its link. How late they still leave is counted (late_1ms, late_max_us): a host
 * that takes the CPU away (steal) delays even a real-time process.
 */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <errno.h>
#include <linux/netfilter.h>
#include <libnetfilter_queue/libnetfilter_queue.h>
#include <poll.h>
#include <sched.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#ifndef SOL_NETLINK
#define SOL_NETLINK 270
#endif
#ifndef NETLINK_NO_ENOBUFS
#define NETLINK_NO_ENOBUFS 5
#endif

/* Packets held at once: 25 ms at 10 Gbit/s of 1500 B frames is ~21k; more than any testbed link. */
#define DEFAULT_MAXLEN_PACKETS 65536u
/* Netlink receive buffer: room for a burst of metadata-only messages while we sleep. */
#define RCVBUF_BYTES (8 * 1024 * 1024)
/* One netlink read: a metadata message is < 200 B, this holds many. */
#define RECV_BUF_BYTES (256 * 1024)
#define MAX_DELAY_MS 10000 /* a sanity bound: beyond this TCP would time out anyway */
/* SCHED_FIFO priority: above every normal process, below the kernel's own real-time threads
   (50 and up); the loop sleeps in ppoll, so it never holds a core. */
#define REALTIME_PRIORITY 10
#define LATE_NS 1000000ull /* a verdict this late (1 ms) or later is counted as late */

struct held { uint32_t id; uint64_t due_ns; };

static struct held *fifo;
static uint32_t fifo_cap, fifo_head, fifo_len;
static uint64_t delay_ns;
static volatile sig_atomic_t stop_requested;
static unsigned long long n_delayed, n_overflow, n_enobufs, n_verdict_err, n_late;
static uint64_t late_max_ns;

static uint64_t now_ns(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

static void on_signal(int sig) { (void)sig; stop_requested = 1; }

static int on_packet(struct nfq_q_handle *qh, struct nfgenmsg *msg, struct nfq_data *nfa, void *data) {
  (void)msg; (void)data;
  struct nfqnl_msg_packet_hdr *ph = nfq_get_msg_packet_hdr(nfa);
  if (!ph) return 0;
  uint32_t id = ntohl(ph->packet_id);
  if (fifo_len == fifo_cap) {
    /* Full (the kernel queue has the same length, so this is rare): pass it undelayed
       rather than dropping it, and count it so the caller can see the emulation broke. */
    n_overflow++;
    if (nfq_set_verdict(qh, id, NF_ACCEPT, 0, NULL) < 0) n_verdict_err++;
    return 0;
  }
  fifo[(fifo_head + fifo_len) % fifo_cap] = (struct held){ id, now_ns() + delay_ns };
  fifo_len++;
  return 0;
}

/* Accepts every held packet whose time has come (all of them when flush). */
static void release_due(struct nfq_q_handle *qh, int flush) {
  uint64_t t = now_ns();
  while (fifo_len > 0 && (flush || fifo[fifo_head].due_ns <= t)) {
    if (nfq_set_verdict(qh, fifo[fifo_head].id, NF_ACCEPT, 0, NULL) < 0) n_verdict_err++;
    else n_delayed++;
    if (!flush) {
      uint64_t late = t - fifo[fifo_head].due_ns;
      if (late >= LATE_NS) n_late++;
      if (late > late_max_ns) late_max_ns = late;
    }
    fifo_head = (fifo_head + 1) % fifo_cap;
    fifo_len--;
  }
}

static long parse_num(const char *s, const char *what, long lo, long hi) {
  char *end;
  errno = 0;
  long v = strtol(s, &end, 10);
  if (errno || *end || v < lo || v > hi) {
    fprintf(stderr, "delayline: %s must be an integer in [%ld, %ld], got '%s'\n", what, lo, hi, s);
    exit(2);
  }
  return v;
}

int main(int argc, char **argv) {
  long queue = -1, delay_ms = -1, maxlen = DEFAULT_MAXLEN_PACKETS;
  for (int i = 1; i < argc; i++) {
    if (i + 1 < argc && !strcmp(argv[i], "--queue")) queue = parse_num(argv[++i], "--queue", 0, 65535);
    else if (i + 1 < argc && !strcmp(argv[i], "--delay-ms")) delay_ms = parse_num(argv[++i], "--delay-ms", 0, MAX_DELAY_MS);
    else if (i + 1 < argc && !strcmp(argv[i], "--maxlen")) maxlen = parse_num(argv[++i], "--maxlen", 1, 1 << 22);
    else {
      fprintf(stderr, "usage: delayline --queue N --delay-ms D [--maxlen PACKETS]\n");
      return 2;
    }
  }
  if (queue < 0 || delay_ms < 0) {
    fprintf(stderr, "usage: delayline --queue N --delay-ms D [--maxlen PACKETS]\n");
    return 2;
  }
  delay_ns = (uint64_t)delay_ms * 1000000ull;
  fifo_cap = (uint32_t)maxlen;
  fifo = calloc(fifo_cap, sizeof *fifo);
  if (!fifo) { perror("delayline: calloc"); return 1; }

  struct sigaction sa = { .sa_handler = on_signal };
  sigaction(SIGTERM, &sa, NULL);
  sigaction(SIGINT, &sa, NULL);
  sigaction(SIGHUP, &sa, NULL);

  struct sched_param rt = { .sched_priority = REALTIME_PRIORITY };
  int realtime = sched_setscheduler(0, SCHED_FIFO, &rt) == 0;
  if (!realtime) perror("delayline: warning: no SCHED_FIFO, verdicts may be late on a busy machine");

  struct nfq_handle *h = nfq_open();
  if (!h) { perror("delayline: nfq_open"); return 1; }
  struct nfq_q_handle *qh = nfq_create_queue(h, (uint16_t)queue, on_packet, NULL);
  if (!qh) { perror("delayline: nfq_create_queue (is the queue taken, or nfnetlink_queue missing?)"); nfq_close(h); return 1; }
  if (nfq_set_mode(qh, NFQNL_COPY_META, 0) < 0) { perror("delayline: nfq_set_mode"); return 1; }
  if (nfq_set_queue_maxlen(qh, (uint32_t)maxlen) < 0) { perror("delayline: nfq_set_queue_maxlen"); return 1; }
  /* GSO: veth hands us TCP super-packets; without this flag the kernel would segment each one
     first. Metadata only, so the size does not matter to us. */
  nfq_set_queue_flags(qh, NFQA_CFG_F_GSO, NFQA_CFG_F_GSO);

  int fd = nfq_fd(h);
  nfnl_rcvbufsiz(nfq_nfnlh(h), RCVBUF_BYTES);
  int one = 1;
  setsockopt(fd, SOL_NETLINK, NETLINK_NO_ENOBUFS, &one, sizeof one);

  printf("delayline: ready queue=%ld delay_ms=%ld realtime=%d\n", queue, delay_ms, realtime);
  fflush(stdout);

  static char buf[RECV_BUF_BYTES] __attribute__((aligned));
  while (!stop_requested) {
    release_due(qh, 0);
    struct timespec wait;
    struct timespec *waitp = NULL; /* nothing held: sleep until a packet or a signal */
    if (fifo_len > 0) {
      uint64_t t = now_ns(), due = fifo[fifo_head].due_ns;
      uint64_t d = due > t ? due - t : 0;
      wait.tv_sec = (time_t)(d / 1000000000ull);
      wait.tv_nsec = (long)(d % 1000000000ull);
      waitp = &wait;
    }
    struct pollfd pfd = { .fd = fd, .events = POLLIN };
    int r = ppoll(&pfd, 1, waitp, NULL);
    if (r < 0) {
      if (errno == EINTR) continue;
      perror("delayline: ppoll");
      break;
    }
    if (r == 0) continue;
    /* drain everything queued now so a burst is timestamped on arrival, not after a sleep */
    for (;;) {
      ssize_t n = recv(fd, buf, sizeof buf, MSG_DONTWAIT);
      if (n < 0) {
        if (errno == ENOBUFS) { n_enobufs++; continue; } /* lost messages: NETLINK_NO_ENOBUFS should prevent it; counted, and those packets stay queued until exit */
        if (errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR) break;
        perror("delayline: recv");
        stop_requested = 1;
        break;
      }
      nfq_handle_packet(h, buf, (int)n);
    }
  }

  release_due(qh, 1); /* never leave packets behind: the kernel would drop them on unbind */
  nfq_destroy_queue(qh);
  nfq_close(h);
  fprintf(stderr, "delayline: exit delayed=%llu overflow=%llu enobufs=%llu verdict_errors=%llu late_1ms=%llu late_max_us=%llu\n",
          n_delayed, n_overflow, n_enobufs, n_verdict_err, n_late, (unsigned long long)(late_max_ns / 1000));
  return 0;
}
