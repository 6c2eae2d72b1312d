import { readdir, readFile, readlink, stat } from 'node:fs/promises';

/**
 * The inodes a process watches with inotify (Linux), as the kernel lists them in /proc/<pid>/fdinfo: Node's
 * fs.watch is an inotify watch there. A test asks whether a daemon watches a folder instead of waiting to see
 * whether an edit is picked up, which no wait can prove.
 */
export async function inotifyWatchedInodes(pid: number): Promise<Set<number>> {
  const watched = new Set<number>();
  for (const fd of await readdir(`/proc/${pid}/fd`)) {
    const target = await readlink(`/proc/${pid}/fd/${fd}`).catch(() => '');
    if (target !== 'anon_inode:inotify') continue;
    const info = await readFile(`/proc/${pid}/fdinfo/${fd}`, 'utf8').catch(() => '');
    for (const match of info.matchAll(/^inotify wd:\S+ ino:([0-9a-f]+)/gm)) watched.add(Number.parseInt(match[1]!, 16));
  }
  return watched;
}

/** Whether process `pid` holds an inotify watch on `path`. */
export async function watchesPath(pid: number, path: string): Promise<boolean> {
  const { ino } = await stat(path);
  return (await inotifyWatchedInodes(pid)).has(ino);
}
