/** Why nothing is sent to a contact who opted out: a send's 409, and the error a message withheld from them keeps. */
export const OPTED_OUT = {
  code: 'CONTACT_OPTED_OUT',
  message: 'The contact opted out (STOP): nothing more is sent until they reply START',
};
