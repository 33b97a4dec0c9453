// librsvg in a child process with a deadline (see SVGDrawingProcess.h).
#define _GNU_SOURCE
#include "SVGDrawingProcess.h"

#include <errno.h>
#include <fcntl.h>
#include <malloc.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <spawn.h>
#include <stdlib.h>
#include <dirent.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/signalfd.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#if defined(__has_feature)
#if __has_feature(address_sanitizer) || __has_feature(thread_sanitizer) || __has_feature(memory_sanitizer)
#define MSVG_SANITIZED 1
#endif
#endif
#ifndef MSVG_SANITIZED
#define MSVG_SANITIZED 0
#endif

extern char **environ;

/// What the parent sends, followed by `count` bytes of SVG.
typedef struct {
    uint64_t count;
    uint64_t memory_bytes;
    double natural_width, natural_height;
    uint32_t width, height;
} draw_request;

/// What the child answers, followed by width × height × 4 bytes of rows when `status` is MB_OK.
typedef struct {
    int32_t status;
    msvg_intrinsic intrinsic;
    mb_message message;
} draw_reply;

// MARK: the child

/// Reads exactly `count` bytes from a blocking descriptor: 0 at its end or on an error.
static int read_exactly(int fd, void *buffer, size_t count) {
    uint8_t *at = buffer;
    while (count > 0) {
        ssize_t got = read(fd, at, count);
        if (got < 0 && errno == EINTR) continue;
        if (got <= 0) return 0;
        at += got;
        count -= (size_t)got;
    }
    return 1;
}

static int write_exactly(int fd, const void *buffer, size_t count) {
    const uint8_t *at = buffer;
    while (count > 0) {
        ssize_t put = write(fd, at, count);
        if (put < 0 && errno == EINTR) continue;
        if (put <= 0) return 0;
        at += put;
        count -= (size_t)put;
    }
    return 1;
}

/// One request: loads and draws under the request's address-space bound; the reply's status
/// and words are the document's. Returns the rows (malloc'ed) when drawn, else NULL.
static uint8_t *draw(const draw_request *request, const uint8_t *bytes, draw_reply *reply) {
    struct rlimit bound;
    // A sanitizer's shadow memory already holds terabytes of address space, so under one (the CI's
    // ASan suite) the bound would refuse every allocation: the deadline alone bounds the drawing.
    if (!MSVG_SANITIZED && getrlimit(RLIMIT_AS, &bound) == 0) {
        bound.rlim_cur = request->memory_bytes < bound.rlim_max ? request->memory_bytes : bound.rlim_max;
        setrlimit(RLIMIT_AS, &bound);
    }
    const char *failure = msvg_library_failure();
    if (failure != NULL) {
        reply->status = MB_UNSUPPORTED;
        mb_message_set(&reply->message, "librsvg is not available: %s", failure);
        return NULL;
    }
    msvg_document *document = msvg_document_create();
    if (document == NULL) {
        reply->status = MB_LIMIT;
        mb_message_set(&reply->message, "out of memory");
        return NULL;
    }
    uint8_t *rows = NULL;
    reply->status = msvg_document_load(document, bytes, (size_t)request->count, &reply->intrinsic);
    if (reply->status == MB_OK) {
        rows = malloc((size_t)request->width * request->height * 4);
        if (rows == NULL) {
            reply->status = MB_LIMIT;
            mb_message_set(&reply->message, "out of memory for %u×%u rows", request->width, request->height);
        } else {
            reply->status = msvg_document_render(document, request->natural_width, request->natural_height,
                                                 request->width, request->height, rows);
        }
    }
    if (reply->status != MB_OK) {
        reply->message = *msvg_document_message(document);
        free(rows);
        rows = NULL;
    }
    msvg_document_destroy(document);
    return rows;
}

/// What a drawing process and the zygote set first: death with the thread that started them
/// (had that ended already, standard input is at its end and they end at once), crashes that end
/// the process at once (the Swift runtime's backtracer would catch them and take seconds), and
/// one drawing at a time: no thread pool in librsvg's filters, two malloc arenas at most, so the
/// address space stays near what was measured whatever the machine's cores.
static void set_up_drawing_process(void) {
    prctl(PR_SET_PDEATHSIG, SIGKILL);
    const int crashes[] = { SIGSEGV, SIGBUS, SIGILL, SIGFPE, SIGABRT, SIGTRAP };
    for (size_t i = 0; i < sizeof crashes / sizeof crashes[0]; i++) signal(crashes[i], SIG_DFL);
    setenv("RAYON_NUM_THREADS", "1", 1);
    mallopt(M_ARENA_MAX, 2);
}

/// Serves drawing requests on standard input until it closes (the process is set up).
static int serve_requests(void) {
    for (;;) {
        draw_request request;
        if (!read_exactly(STDIN_FILENO, &request, sizeof request)) return 0;
        if (request.width == 0 || request.height == 0 || request.width > 32767 || request.height > 32767) return 1;
        uint8_t *bytes = malloc(request.count ? (size_t)request.count : 1);
        if (bytes == NULL || !read_exactly(STDIN_FILENO, bytes, (size_t)request.count)) return 1;
        draw_reply reply;
        memset(&reply, 0, sizeof reply);
        uint8_t *rows = draw(&request, bytes, &reply);
        free(bytes);
        int sent = write_exactly(STDIN_FILENO, &reply, sizeof reply)
            && (rows == NULL || write_exactly(STDIN_FILENO, rows, (size_t)request.width * request.height * 4));
        free(rows);
        if (!sent) return 0;
    }
}

int msvg_process_serve(void) {
    set_up_drawing_process();
    return serve_requests();
}

// MARK: the zygote

/// A request to the zygote (parent to zygote, one SOCK_SEQPACKET message): fork a drawing
/// process, or kill one of its drawing processes.
typedef struct {
    int32_t kind;
    int32_t pid;
} zygote_request;

enum { ZYGOTE_FORK = 1, ZYGOTE_KILL = 2 };

/// What the zygote says (one message): a drawing process started (its pid, the parent's end of
/// its socket attached as SCM_RIGHTS), a fork refused (`value` an errno), or a drawing process
/// ended (`value` its wait status).
typedef struct {
    int32_t kind;
    int32_t pid;
    int32_t value;
} zygote_message;

enum { ZYGOTE_STARTED = 1, ZYGOTE_REFUSED = 2, ZYGOTE_ENDED = 3 };

/// The zygote's drawing processes not yet reaped (a fixed table: a fork past it is refused).
static pid_t zygote_children[256];

/// Where `pid` is in zygote_children (0 finds a free slot), or -1.
static int zygote_child_index(pid_t pid) {
    for (int i = 0; i < (int)(sizeof zygote_children / sizeof zygote_children[0]); i++)
        if (zygote_children[i] == pid) return i;
    return -1;
}

/// Whether this process runs one thread only (/proc/self/task has one entry): only then may it fork.
static int single_threaded(void) {
    DIR *tasks = opendir("/proc/self/task");
    if (tasks == NULL) return 0;
    int count = 0;
    for (struct dirent *entry; (entry = readdir(tasks)) != NULL;)
        if (entry->d_name[0] != '.') count++;
    closedir(tasks);
    return count == 1;
}

/// Sends the command `message`, with `descriptor` attached when it is not -1.
static void zygote_say(zygote_message message, int descriptor) {
    struct iovec data = { &message, sizeof message };
    union { struct cmsghdr header; char space[CMSG_SPACE(sizeof(int))]; } control;
    struct msghdr header = { .msg_iov = &data, .msg_iovlen = 1 };
    if (descriptor >= 0) {
        memset(&control, 0, sizeof control);
        header.msg_control = control.space;
        header.msg_controllen = sizeof control.space;
        struct cmsghdr *rights = CMSG_FIRSTHDR(&header);
        rights->cmsg_level = SOL_SOCKET;
        rights->cmsg_type = SCM_RIGHTS;
        rights->cmsg_len = CMSG_LEN(sizeof(int));
        memcpy(CMSG_DATA(rights), &descriptor, sizeof descriptor);
    }
    while (sendmsg(STDIN_FILENO, &header, MSG_NOSIGNAL) < 0 && errno == EINTR) {}
}

/// Forks a drawing process (its socket as standard input, nothing else of the zygote's) and
/// sends the parent its pid and the other end of the socket, or why it could not.
static void fork_drawing_process(int child_signals) {
    zygote_message answer = { ZYGOTE_REFUSED, 0, 0 };
    int slot = zygote_child_index(0), ends[2];
    if (slot < 0) {
        answer.value = EAGAIN;
    } else if (!single_threaded()) {
        answer.value = EDEADLK;
    } else if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, ends) != 0) {
        answer.value = errno;
    } else {
        pid_t zygote = getpid();
        pid_t pid = fork();
        if (pid == 0) {
            // Dies with the zygote, which dies with the command's spawner thread.
            prctl(PR_SET_PDEATHSIG, SIGKILL);
            if (getppid() != zygote) _exit(0);
            close(child_signals);
            close(ends[0]);
            dup2(ends[1], STDIN_FILENO);   // over the zygote's socket; without close-on-exec
            close(ends[1]);
            sigset_t none;
            sigemptyset(&none);
            sigprocmask(SIG_SETMASK, &none, NULL);
            _exit(serve_requests());
        }
        close(ends[1]);
        if (pid < 0) {
            answer.value = errno;
        } else {
            zygote_children[slot] = pid;
            answer = (zygote_message){ ZYGOTE_STARTED, pid, 0 };
            zygote_say(answer, ends[0]);
            close(ends[0]);
            return;
        }
        close(ends[0]);
    }
    zygote_say(answer, -1);
}

/// Reaps every drawing process that ended and tells the parent how.
static void reap_drawing_processes(void) {
    int status;
    pid_t pid;
    while ((pid = waitpid(-1, &status, WNOHANG)) > 0) {
        int slot = zygote_child_index(pid);
        if (slot >= 0) zygote_children[slot] = 0;
        zygote_say((zygote_message){ ZYGOTE_ENDED, pid, status }, -1);
    }
}

/// Draws a small document once, so that librsvg's, GLib's and cairo's set-up on a first drawing
/// is done before the forks and every drawing process starts with it.
static void warm_up(void) {
    static const char drawing[] = "<svg xmlns='http://www.w3.org/2000/svg' width='4' height='4'>"
                                  "<path d='M0,0L4,1L2,4z' fill='#2a6' stroke='#000' stroke-width='0.5' opacity='0.8'/></svg>";
    msvg_document *document = msvg_document_create();
    msvg_intrinsic intrinsic;
    uint8_t rows[4 * 4 * 4];
    if (document != NULL && msvg_document_load(document, (const uint8_t *)drawing, sizeof drawing - 1, &intrinsic) == MB_OK)
        (void)msvg_document_render(document, 4, 4, 4, 4, rows);
    msvg_document_destroy(document);
}

int msvg_zygote_serve(void) {
    set_up_drawing_process();
    warm_up();
    sigset_t child_ends;
    sigemptyset(&child_ends);
    sigaddset(&child_ends, SIGCHLD);
    sigprocmask(SIG_BLOCK, &child_ends, NULL);
    int child_signals = signalfd(-1, &child_ends, SFD_CLOEXEC | SFD_NONBLOCK);
    if (child_signals < 0) return 1;
    for (;;) {
        struct pollfd watched[2] = { { .fd = STDIN_FILENO, .events = POLLIN }, { .fd = child_signals, .events = POLLIN } };
        if (poll(watched, 2, -1) < 0) {
            if (errno == EINTR) continue;
            break;
        }
        if (watched[1].revents) {
            struct signalfd_siginfo drained[8];
            while (read(child_signals, drained, sizeof drained) > 0) {}
            reap_drawing_processes();
        }
        if (watched[0].revents) {
            zygote_request request;
            ssize_t got = recv(STDIN_FILENO, &request, sizeof request, 0);
            if (got < 0 && errno == EINTR) continue;
            if (got != sizeof request) break;
            if (request.kind == ZYGOTE_FORK) fork_drawing_process(child_signals);
            else if (request.kind == ZYGOTE_KILL && request.pid > 0 && zygote_child_index(request.pid) >= 0) kill(request.pid, SIGKILL);
        }
    }
    // The command closed its end (its exit): every drawing process ends, and is reaped here so
    // that its CPU time counts in the command's.
    for (size_t i = 0; i < sizeof zygote_children / sizeof zygote_children[0]; i++)
        if (zygote_children[i] > 0) kill(zygote_children[i], SIGKILL);
    while (wait(NULL) > 0 || errno == EINTR) {}
    return 0;
}

// MARK: the parent

static const char *process_executable;

void msvg_process_use(const char *executable) { process_executable = executable; }

const char *msvg_process_executable(void) { return process_executable; }

/// A running drawing process: its id, the parent's end of its socket (non-blocking,
/// close-on-exec), whether it waits for a drawing, and whether the zygote forked it (the zygote
/// then kills and reaps it, and says how it ended) or this process spawned it.
typedef struct drawing_child {
    pid_t pid;
    int socket;
    int idle;
    int forked;
    struct drawing_child *next;
} drawing_child;

/// Every running child: a drawing takes an idle one (or has one started), and gives it back
/// after; the command's exit reaps them all (their CPU time then counts in the command's, as
/// `time` and wait4 report it).
static pthread_mutex_t children_lock = PTHREAD_MUTEX_INITIALIZER;
static drawing_child *children;

static void list_child(drawing_child *child) {
    pthread_mutex_lock(&children_lock);
    child->idle = 0;
    child->next = children;
    children = child;
    pthread_mutex_unlock(&children_lock);
}

/// An idle child, now busy; NULL when every child draws.
static drawing_child *take_idle_child(void) {
    pthread_mutex_lock(&children_lock);
    drawing_child *child = children;
    while (child != NULL && !child->idle) child = child->next;
    if (child != NULL) child->idle = 0;
    pthread_mutex_unlock(&children_lock);
    return child;
}

static void give_back(drawing_child *child) {
    pthread_mutex_lock(&children_lock);
    child->idle = 1;
    pthread_mutex_unlock(&children_lock);
}

/// Takes `child` out of the list: 0 when the exit already took it.
static int unlist(drawing_child *child) {
    pthread_mutex_lock(&children_lock);
    drawing_child **link = &children;
    while (*link != NULL && *link != child) link = &(*link)->next;
    int found = *link != NULL;
    if (found) *link = child->next;
    pthread_mutex_unlock(&children_lock);
    return found;
}

/// A drawing process's end as the zygote reported it, not yet asked for.
typedef struct ended_process {
    pid_t pid;
    int status;
    struct ended_process *next;
} ended_process;

/// The zygote as this process sees it. Whoever waits for something it says (the spawner thread
/// for a fork's answer, a worker for a drawing process's end) reads its socket holding
/// `zygote_lock`, and files whatever comes for the others.
static pthread_mutex_t zygote_lock = PTHREAD_MUTEX_INITIALIZER;
static struct {
    enum { ZYGOTE_NOT_STARTED, ZYGOTE_RUNNING, ZYGOTE_GONE } state;
    pid_t pid;
    int control;              // this process's end of its SOCK_SEQPACKET socket (blocking)
    int answered;             // the answer to the fork asked, with its socket (or -1)
    zygote_message answer;
    int answer_socket;
    ended_process *ended;
} zygote = { .state = ZYGOTE_NOT_STARTED, .control = -1, .answer_socket = -1 };

/// Reads one message from the zygote and files it (zygote_lock held): 0 when the zygote is gone.
static int read_zygote(void) {
    zygote_message message;
    union { struct cmsghdr header; char space[CMSG_SPACE(sizeof(int))]; } control;
    struct iovec data = { &message, sizeof message };
    struct msghdr header = { .msg_iov = &data, .msg_iovlen = 1, .msg_control = control.space, .msg_controllen = sizeof control.space };
    ssize_t got;
    while ((got = recvmsg(zygote.control, &header, MSG_CMSG_CLOEXEC)) < 0 && errno == EINTR) {}
    int socket = -1;
    struct cmsghdr *rights = got > 0 ? CMSG_FIRSTHDR(&header) : NULL;
    if (rights != NULL && rights->cmsg_level == SOL_SOCKET && rights->cmsg_type == SCM_RIGHTS && rights->cmsg_len == CMSG_LEN(sizeof(int)))
        memcpy(&socket, CMSG_DATA(rights), sizeof socket);
    if (got != sizeof message) {
        if (socket >= 0) close(socket);
        zygote.state = ZYGOTE_GONE;
        return 0;
    }
    if (message.kind == ZYGOTE_ENDED) {
        ended_process *end = malloc(sizeof *end);
        if (end != NULL) {
            *end = (ended_process){ message.pid, message.value, zygote.ended };
            zygote.ended = end;
        }
        if (socket >= 0) close(socket);
    } else {
        zygote.answered = 1;
        zygote.answer = message;
        zygote.answer_socket = socket;
    }
    return 1;
}

/// How a drawing process the zygote forked ended (after its socket closed, or a kill asked);
/// killed by SIGKILL when the zygote is gone (its drawing processes die with it).
static int zygote_child_status(pid_t pid) {
    pthread_mutex_lock(&zygote_lock);
    int status = SIGKILL;
    for (;;) {
        ended_process **link = &zygote.ended;
        while (*link != NULL && (*link)->pid != pid) link = &(*link)->next;
        if (*link != NULL) {
            ended_process *end = *link;
            status = end->status;
            *link = end->next;
            free(end);
            break;
        }
        if (zygote.state != ZYGOTE_RUNNING || !read_zygote()) break;
    }
    pthread_mutex_unlock(&zygote_lock);
    return status;
}

/// Sends the zygote a request (a fork's answer, or a killed process's end, comes back later).
static void ask_zygote(int32_t kind, pid_t pid) {
    zygote_request request = { kind, pid };
    while (send(zygote.control, &request, sizeof request, MSG_NOSIGNAL) < 0 && errno == EINTR) {}
}

/// Kills an unlisted child (it may be drawing), reaps it (or waits for the zygote to) and frees it.
static void stop_child(drawing_child *child) {
    close(child->socket);
    if (child->forked) {
        ask_zygote(ZYGOTE_KILL, child->pid);
        (void)zygote_child_status(child->pid);
    } else {
        kill(child->pid, SIGKILL);
        while (waitpid(child->pid, NULL, 0) < 0 && errno == EINTR) {}
    }
    free(child);
}

/// At the process's exit, every child left: the spawned ones killed and reaped here, the
/// zygote's ended by the zygote when its socket closes, then the zygote reaped.
static void stop_all_children(void) {
    pthread_mutex_lock(&children_lock);
    drawing_child *left = children;
    children = NULL;
    pthread_mutex_unlock(&children_lock);
    while (left != NULL) {
        drawing_child *next = left->next;
        if (left->forked) {
            close(left->socket);
            free(left);
        } else {
            stop_child(left);
        }
        left = next;
    }
    if (zygote.control >= 0) {
        close(zygote.control);
        while (waitpid(zygote.pid, NULL, 0) < 0 && errno == EINTR) {}
    }
}

/// Starts `executable` with the one argument `argument` and its end of a new socket pair of
/// `type` as standard input (standard output and error /dev/null, no other descriptor): 0 and
/// the process's id and this process's end (close-on-exec), or -1 with the reason.
static int start_process(const char *executable, const char *argument, int type, pid_t *pid, int *socket, mb_message *message) {
    int ends[2];
    if (socketpair(AF_UNIX, type | SOCK_CLOEXEC, 0, ends) != 0) {
        mb_message_set(message, "cannot start the SVG drawing process: %s", strerror(errno));
        return -1;
    }
    posix_spawn_file_actions_t actions;
    posix_spawn_file_actions_init(&actions);
    posix_spawn_file_actions_adddup2(&actions, ends[1], STDIN_FILENO);
    posix_spawn_file_actions_addopen(&actions, STDOUT_FILENO, "/dev/null", O_WRONLY, 0);
    posix_spawn_file_actions_adddup2(&actions, STDOUT_FILENO, STDERR_FILENO);
    posix_spawn_file_actions_addclosefrom_np(&actions, STDERR_FILENO + 1);
    // Default dispositions and no blocked signal (the command ignores SIGPIPE; workers may block some).
    posix_spawnattr_t attributes;
    posix_spawnattr_init(&attributes);
    sigset_t none, all;
    sigemptyset(&none);
    sigfillset(&all);
    posix_spawnattr_setsigmask(&attributes, &none);
    posix_spawnattr_setsigdefault(&attributes, &all);
    posix_spawnattr_setflags(&attributes, POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF);
    char *arguments[] = { (char *)executable, (char *)argument, NULL };
    int failure = posix_spawn(pid, executable, &actions, &attributes, arguments, environ);
    posix_spawn_file_actions_destroy(&actions);
    posix_spawnattr_destroy(&attributes);
    close(ends[1]);
    if (failure != 0) {
        mb_message_set(message, "cannot start the SVG drawing process: %s", strerror(failure));
        close(ends[0]);
        return -1;
    }
    *socket = ends[0];
    return 0;
}

/// A drawing child on `socket` (made non-blocking), or NULL without memory (the process is then killed).
static drawing_child *make_child(pid_t pid, int socket, int forked, mb_message *message) {
    drawing_child *child = malloc(sizeof *child);
    if (child == NULL) {
        mb_message_set(message, "cannot start the SVG drawing process: %s", strerror(ENOMEM));
        close(socket);
        if (forked) {
            ask_zygote(ZYGOTE_KILL, pid);
            (void)zygote_child_status(pid);
        } else {
            kill(pid, SIGKILL);
            waitpid(pid, NULL, 0);
        }
        return NULL;
    }
    fcntl(socket, F_SETFL, fcntl(socket, F_GETFL) | O_NONBLOCK);
    *child = (drawing_child){ .pid = pid, .socket = socket, .forked = forked };
    return child;
}

/// Starts the zygote (`executable` run with MSVG_ZYGOTE_ARGUMENT), once; when it cannot start,
/// drawing processes are spawned one by one.
static void start_zygote(const char *executable) {
    pthread_mutex_lock(&zygote_lock);
    if (zygote.state == ZYGOTE_NOT_STARTED) {
        mb_message ignored;
        zygote.state = start_process(executable, MSVG_ZYGOTE_ARGUMENT, SOCK_SEQPACKET, &zygote.pid, &zygote.control, &ignored) == 0
            ? ZYGOTE_RUNNING : ZYGOTE_GONE;
    }
    pthread_mutex_unlock(&zygote_lock);
}

/// How long a fork's answer may take (the first waits for the zygote's librsvg load and warm-up):
/// past it the zygote is killed, and drawing processes are spawned from then on.
enum { ZYGOTE_ANSWER_SECONDS = 10 };

/// A drawing process forked by the zygote; NULL when the zygote is gone, refused (it cannot
/// fork while it runs more than one thread) or did not answer in time.
static drawing_child *fork_child(mb_message *message) {
    pthread_mutex_lock(&zygote_lock);
    zygote_message answer = { 0 };
    int socket = -1;
    if (zygote.state == ZYGOTE_RUNNING) {
        zygote.answered = 0;
        ask_zygote(ZYGOTE_FORK, 0);
        while (!zygote.answered) {
            struct pollfd watched = { .fd = zygote.control, .events = POLLIN };
            int ready = poll(&watched, 1, ZYGOTE_ANSWER_SECONDS * 1000);
            if (ready < 0 && errno == EINTR) continue;
            if (ready <= 0) {
                kill(zygote.pid, SIGKILL);   // reaped at the exit, with the others
                zygote.state = ZYGOTE_GONE;
                break;
            }
            if (!read_zygote()) break;
        }
        if (zygote.answered) {
            answer = zygote.answer;
            socket = zygote.answer_socket;
            zygote.answer_socket = -1;
        }
    }
    pthread_mutex_unlock(&zygote_lock);
    if (answer.kind != ZYGOTE_STARTED || socket < 0) {
        if (socket >= 0) close(socket);
        return NULL;
    }
    return make_child(answer.pid, socket, 1, message);
}

/// A new drawing process: forked by the zygote (started first if need be), else spawned.
static drawing_child *start_child(const char *executable, mb_message *message) {
    start_zygote(executable);
    drawing_child *child = fork_child(message);
    if (child != NULL) return child;
    pid_t pid;
    int socket;
    if (start_process(executable, MSVG_PROCESS_ARGUMENT, SOCK_STREAM, &pid, &socket, message) != 0) return NULL;
    return make_child(pid, socket, 0, message);
}

typedef enum { MOVED, LATE, ENDED } transfer_result;

/// Waits for `events` on `fd` until `deadline` (CLOCK_MONOTONIC).
static transfer_result wait_for(int fd, short events, const struct timespec *deadline) {
    for (;;) {
        struct timespec now;
        clock_gettime(CLOCK_MONOTONIC, &now);
        int64_t left = (int64_t)(deadline->tv_sec - now.tv_sec) * 1000 + (deadline->tv_nsec - now.tv_nsec) / 1000000;
        if (left <= 0) return LATE;
        struct pollfd watched = { .fd = fd, .events = events };
        int ready = poll(&watched, 1, left > 60000 ? 60000 : (int)left);
        if (ready > 0) return MOVED;
        if (ready < 0 && errno != EINTR) return ENDED;
    }
}

/// Sends or receives exactly `count` bytes before `deadline`; ENDED when the child closed its end.
static transfer_result transfer(int fd, void *buffer, size_t count, int sending, const struct timespec *deadline) {
    uint8_t *at = buffer;
    while (count > 0) {
        ssize_t moved = sending ? send(fd, at, count, MSG_NOSIGNAL) : recv(fd, at, count, 0);
        if (moved > 0) {
            at += moved;
            count -= (size_t)moved;
        } else if (moved < 0 && (errno == EAGAIN || errno == EINTR)) {
            transfer_result waited = wait_for(fd, sending ? POLLOUT : POLLIN, deadline);
            if (waited != MOVED) return waited;
        } else {
            return ENDED;
        }
    }
    return MOVED;
}

/// Why an unlisted child that closed its socket ended (it is reaped here, or by the zygote).
static void report_end(drawing_child *child, mb_message *message) {
    close(child->socket);
    int status = 0;
    if (child->forked) status = zygote_child_status(child->pid);
    else while (waitpid(child->pid, &status, 0) < 0 && errno == EINTR) {}
    if (WIFSIGNALED(status)) {
        const char *name = sigabbrev_np(WTERMSIG(status));
        mb_message_set(message, "librsvg ended by signal %d (SIG%s) while drawing the SVG", WTERMSIG(status), name ? name : "?");
    } else {
        mb_message_set(message, "the SVG drawing process exited with status %d", WEXITSTATUS(status));
    }
    free(child);
}

// Children are started by one thread that lives as long as the process: PR_SET_PDEATHSIG kills a
// child when the *thread* that started it ends, and the sheet's workers end with each page.
static pthread_mutex_t spawn_turn = PTHREAD_MUTEX_INITIALIZER;   // one request at a time
static pthread_mutex_t spawn_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t spawn_changed = PTHREAD_COND_INITIALIZER;
static struct {
    const char *executable;
    int asked, answered;
    drawing_child *child;
    mb_message message;
} spawn;
static pthread_once_t spawner_once = PTHREAD_ONCE_INIT;
static int spawner_missing;

static void *spawner_main(void *unused) {
    (void)unused;
    pthread_mutex_lock(&spawn_lock);
    for (;;) {
        while (!spawn.asked) pthread_cond_wait(&spawn_changed, &spawn_lock);
        spawn.asked = 0;
        mb_message_clear(&spawn.message);
        spawn.child = start_child(spawn.executable, &spawn.message);
        if (spawn.child != NULL) list_child(spawn.child);
        spawn.answered = 1;
        pthread_cond_broadcast(&spawn_changed);
    }
    return NULL;
}

static void start_spawner(void) {
    pthread_attr_t attributes;
    pthread_attr_init(&attributes);
    pthread_attr_setdetachstate(&attributes, PTHREAD_CREATE_DETACHED);
    pthread_t thread;
    spawner_missing = pthread_create(&thread, &attributes, spawner_main, NULL);
    pthread_attr_destroy(&attributes);
    atexit(stop_all_children);
}

/// A new busy child of `executable`, started by the spawner thread; NULL with the reason.
static drawing_child *spawn_child(const char *executable, mb_message *message) {
    pthread_once(&spawner_once, start_spawner);
    if (spawner_missing) {
        mb_message_set(message, "cannot start the SVG drawing process: %s", strerror(spawner_missing));
        return NULL;
    }
    pthread_mutex_lock(&spawn_turn);
    pthread_mutex_lock(&spawn_lock);
    spawn.executable = executable;
    spawn.answered = 0;
    spawn.asked = 1;
    pthread_cond_broadcast(&spawn_changed);
    while (!spawn.answered) pthread_cond_wait(&spawn_changed, &spawn_lock);
    drawing_child *child = spawn.child;
    if (child == NULL) *message = spawn.message;
    pthread_mutex_unlock(&spawn_lock);
    pthread_mutex_unlock(&spawn_turn);
    return child;
}

mb_status msvg_process_draw(const char *executable, const uint8_t *bytes, size_t count, double natural_width, double natural_height,
                            uint32_t width, uint32_t height, uint32_t deadline_seconds, uint64_t memory_bytes,
                            msvg_intrinsic *intrinsic, uint8_t *rgba, mb_message *message) {
    if (executable == NULL || bytes == NULL || rgba == NULL || intrinsic == NULL) return MB_USAGE;
    drawing_child *child = take_idle_child();
    if (child == NULL) child = spawn_child(executable, message);
    if (child == NULL) return MB_UNSUPPORTED;
    struct timespec deadline;
    clock_gettime(CLOCK_MONOTONIC, &deadline);
    deadline.tv_sec += deadline_seconds;
    draw_request request = { count, memory_bytes, natural_width, natural_height, width, height };
    draw_reply reply;
    transfer_result result = transfer(child->socket, &request, sizeof request, 1, &deadline);
    if (result == MOVED) result = transfer(child->socket, (void *)bytes, count, 1, &deadline);
    if (result == MOVED) result = transfer(child->socket, &reply, sizeof reply, 0, &deadline);
    if (result == MOVED && reply.status == MB_OK) result = transfer(child->socket, rgba, (size_t)width * height * 4, 0, &deadline);
    if (result != MOVED) {
        unlist(child);
        if (result == LATE) {
            stop_child(child);
            mb_message_set(message, "drawing the SVG took longer than %u s", deadline_seconds);
            return MB_LIMIT;
        }
        report_end(child, message);
        return MB_MALFORMED;
    }
    give_back(child);
    *intrinsic = reply.intrinsic;
    reply.message.text[sizeof reply.message.text - 1] = 0;
    *message = reply.message;
    return reply.status;
}
