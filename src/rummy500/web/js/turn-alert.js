// When it becomes your turn while the tab is in the background: the tab's title says so, and a
// beep when the player asked for one.
import { useEffect, useRef } from './lib.js';
import { t } from './i18n.js';

/** A short beep made on the spot (WebAudio: no sound file). */
function beep() {
  try {
    const Context = window.AudioContext || window.webkitAudioContext;
    if (!Context) return;
    const audio = new Context();
    const tone = audio.createOscillator();
    const volume = audio.createGain();
    tone.frequency.value = 880;
    volume.gain.value = 0.08;
    tone.connect(volume);
    volume.connect(audio.destination);
    tone.onended = () => audio.close();
    tone.start();
    tone.stop(audio.currentTime + 0.15);
  } catch {
    // no sound then: the title still says it
  }
}

export function useTurnAlert(myTurn, sound) {
  const soundRef = useRef(sound);
  soundRef.current = sound;
  useEffect(() => {
    if (!myTurn) return undefined;
    const show = () => {
      if (document.hidden) document.title = t('title.turn');
      else if (document.title === t('title.turn')) document.title = t('title.table');
    };
    if (document.hidden && soundRef.current) beep();
    show();
    document.addEventListener('visibilitychange', show);
    return () => {
      document.removeEventListener('visibilitychange', show);
      if (document.title === t('title.turn')) document.title = t('title.table');
    };
  }, [myTurn]);
}
