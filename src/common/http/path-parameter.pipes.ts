import { Injectable, type PipeTransform } from '@nestjs/common';
import { AppError } from '../errors/app-error';

/** A filing's receipt number (`:rceptNo`): 14 digits, or 400 VALIDATION_FAILED. */
@Injectable()
export class RceptNoPipe implements PipeTransform<string, string> {
  transform(rceptNo: string): string {
    if (!/^\d{14}$/.test(rceptNo)) throw new AppError('VALIDATION_FAILED', 'rceptNo must be 14 digits');
    return rceptNo;
  }
}

/** A company's code in the disclosure system (`:corpCode`): 8 digits, or 400 VALIDATION_FAILED. */
@Injectable()
export class CorpCodePipe implements PipeTransform<string, string> {
  transform(corpCode: string): string {
    if (!/^\d{8}$/.test(corpCode)) throw new AppError('VALIDATION_FAILED', 'corpCode must be 8 digits');
    return corpCode;
  }
}
