// The languages the browser game can speak: code -> the language's own name.
// To add one, copy en.js to CODE.js, translate its messages and list it here.
export const LANGUAGES = {
  en: 'English',
  hu: 'Magyar',
  lo: 'ລາວ',
};
