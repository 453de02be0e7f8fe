import { parentPort, workerData } from 'node:worker_threads';
import { MediaFiles, type BaseBytes, type MediaJob } from './media-files.ts';

/** The media writer's thread: writes each batch it is sent and reports the bytes. */
const files = new MediaFiles(workerData.mediaDir as string, workerData.bases as BaseBytes[]);
const port = parentPort!;

port.on('message', (msg: { id: number; jobs: MediaJob[] }) => {
  try {
    let bytes = 0;
    for (const job of msg.jobs) bytes += files.writePost(job);
    port.postMessage({ id: msg.id, files: msg.jobs.length, bytes });
  } catch (err) {
    port.postMessage({ id: msg.id, error: (err as Error).message });
  }
});
