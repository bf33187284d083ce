// The names this service gives stored files: 32 hex digits and the extension of the image format
// their bytes show. Anything else in the upload folder is never served, read or deleted.
export const UPLOAD_NAME = /^[0-9a-f]{32}\.(png|jpg|gif|webp)$/;

export const isUploadName = (name: string) => UPLOAD_NAME.test(name);
