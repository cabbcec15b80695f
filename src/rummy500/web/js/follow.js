// A scrolling list (the Moves log) that follows its newest entry, unless the reader has scrolled
// up to read: then it stays where the reader is until they scroll back to the end.
import { useLayoutEffect, useRef } from './lib.js';

/** How near the end (in pixels) still counts as "at the newest entry". */
const SLACK_PX = 24;

/** Give the list `ref` and `onScroll`; `deps` change when entries are added (or it remounts). */
export function useFollowNewest(deps) {
  const ref = useRef(null);
  const following = useRef(true);
  const onScroll = () => {
    const list = ref.current;
    if (list) following.current = list.scrollHeight - list.scrollTop - list.clientHeight <= SLACK_PX;
  };
  useLayoutEffect(() => {
    const list = ref.current;
    if (list && following.current) list.scrollTop = list.scrollHeight;
  }, deps);
  return { ref, onScroll };
}
