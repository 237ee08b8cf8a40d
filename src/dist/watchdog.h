/*!
 * \brief The watchdog of a distributed job: each rank keeps a TCP connection to rank 0 beside
 *  MPI. A rank that ends without saying goodbye (killed, crashed, exited on an error) closes it,
 *  so the others learn at once which rank failed, print it, and exit non-zero instead of waiting
 *  in their next collective. mpirun's SIGTERM to the survivors gets the same message.
 */
#ifndef SYMNET_SRC_DIST_WATCHDOG_H_
#define SYMNET_SRC_DIST_WATCHDOG_H_

#include "transport.h"

namespace symnet {
namespace dist {

/*! \brief Connects the ranks (on the communication thread, inside Init; rank 0 broadcasts its
 *  address with transport::Broadcast) and starts watching. */
void StartWatchdog(const transport::Layout& layout);
/*! \brief This rank ends normally: tells the others and stops watching. */
void FinishWatchdog();
/*! \brief Ends the process now, without the goodbye: the others report this rank as failed. */
[[noreturn]] void ExitWithoutFinishing(int code);
/*! \brief A rank that has finished normally (said goodbye), or -1. */
int FinishedRank();
/*! \brief True in a process forked from a rank (a data-loader worker): it is not part of the job.
 */
bool InForkedChild();
/*! \brief Blocks SIGTERM in the calling thread, so that the launcher's SIGTERM reaches a thread
 *  that can wait for the watchdog's verdict (called by symnet's own threads). */
void BlockTerminationSignal();

}  // namespace dist
}  // namespace symnet

#endif  // SYMNET_SRC_DIST_WATCHDOG_H_
