import { registerDecorator, type ValidationOptions } from 'class-validator';
import { isCalendarDate } from '../korea-time';

/** A real calendar date written as YYYYMMDD. */
export function IsYmdDate(options?: ValidationOptions): PropertyDecorator {
  return (target, propertyName) =>
    registerDecorator({
      name: 'isYmdDate',
      target: target.constructor,
      propertyName: propertyName as string,
      options: { message: `${String(propertyName)} must be a calendar date written as YYYYMMDD`, ...options },
      validator: { validate: (value: unknown) => typeof value === 'string' && isCalendarDate(value) },
    });
}

/** The property is not before the date held in `startProperty` (both YYYYMMDD). */
export function IsNotBefore(startProperty: string, options?: ValidationOptions): PropertyDecorator {
  return (target, propertyName) =>
    registerDecorator({
      name: 'isNotBefore',
      target: target.constructor,
      propertyName: propertyName as string,
      constraints: [startProperty],
      options: { message: `${String(propertyName)} must not be before ${startProperty}`, ...options },
      validator: {
        validate: (value: unknown, args) => {
          const start = (args?.object as Record<string, unknown>)[startProperty];
          return typeof value !== 'string' || typeof start !== 'string' || start <= value;
        },
      },
    });
}
